"""Widgets of the table: cards, seats, the pile, the clock, the hand helper."""
