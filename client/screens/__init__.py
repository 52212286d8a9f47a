"""The app's screens: lobby, table, cut, showdown and reveal, game over, help, dialogs."""
