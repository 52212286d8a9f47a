// A client written from the documents alone (README.md, docs/PROTOCOL.md, docs/games/*.md,
// docs/FAIRNESS.md and the rules), with nothing from this repository's code: it starts a real
// dab-server on 127.0.0.1 (an ephemeral port, a temporary data directory), plays whole games of
// Down and Back and Cribbage with several human seats over separate connections, choosing at random
// among what each view says is legal, and checks what a stranger would: one reply per request
// with the documented keys, the documented error codes, chips conserved, no hidden card in anyone
// else's messages, reconnecting to the same seat and hand, and every deal's commitment and deck.
//
//     node docs/tools/stranger_client.mjs [--server PATH/dab-server | --python PATH/python] [--seed N] [--short]
//         [--verbose] [--only protocol,lobby,down-and-back,down-and-back-variants,cribbage,cribbage-partners,cribbage-muggins,sit-out,sit-in,limits,rematch,restart,timeouts]
//
// --python runs `python -m server` from this checkout; --short plays one round of Down and Back;
// every scenario runs but `timeouts` (25 s of waiting), which --only names.
//
// Exit code 0 when nothing differs from the documents; 1 with every difference printed.

import net from "node:net";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";

// ---------------------------------------------------------------- msgpack (PROTOCOL.md §3's subset)

function encode(value) {
  const parts = [];
  const push = (...bytes) => parts.push(Buffer.from(bytes));
  const write = (v) => {
    if (v === null || v === undefined) push(0xc0);
    else if (v === false) push(0xc2);
    else if (v === true) push(0xc3);
    else if (typeof v === "number" && Number.isInteger(v)) writeInt(v);
    else if (typeof v === "bigint") writeInt(v);
    else if (typeof v === "number") { const b = Buffer.alloc(9); b[0] = 0xcb; b.writeDoubleBE(v, 1); parts.push(b); }
    else if (typeof v === "string") {
      const s = Buffer.from(v, "utf8"), n = s.length;
      if (n < 32) push(0xa0 | n); else if (n < 256) push(0xd9, n);
      else if (n < 65536) push(0xda, n >> 8, n & 255); else { const b = Buffer.alloc(5); b[0] = 0xdb; b.writeUInt32BE(n, 1); parts.push(b); }
      parts.push(s);
    } else if (Array.isArray(v)) {
      const n = v.length;
      if (n < 16) push(0x90 | n); else if (n < 65536) push(0xdc, n >> 8, n & 255); else throw new Error("array too long");
      v.forEach(write);
    } else if (v instanceof Raw) parts.push(v.bytes);
    else if (typeof v === "object") {
      const keys = Object.keys(v), n = keys.length;
      if (n < 16) push(0x80 | n); else if (n < 65536) push(0xde, n >> 8, n & 255); else throw new Error("map too long");
      for (const k of keys) { write(k); write(v[k]); }
    } else throw new Error(`cannot encode ${typeof v}`);
  };
  const writeInt = (v) => {
    const big = BigInt(v);
    if (big >= 0n && big < 128n) push(Number(big));
    else if (big < 0n && big >= -32n) push(0x100 + Number(big));
    else { const b = Buffer.alloc(9); if (big >= 0n) { b[0] = 0xcf; b.writeBigUInt64BE(big, 1); } else { b[0] = 0xd3; b.writeBigInt64BE(big, 1); } parts.push(b); }
  };
  write(value);
  return Buffer.concat(parts);
}

/** Bytes put as they are into an encoded message (to send what a well-behaved encoder never would). */
class Raw { constructor(bytes) { this.bytes = Buffer.from(bytes); } }

/** Decode one msgpack value filling `buf`; refuse what §3 forbids the server to send too. */
function decode(buf) {
  let pos = 0;
  const need = (n) => { if (pos + n > buf.length) throw new Error("truncated"); };
  const str = (n) => { need(n); const s = buf.toString("utf8", pos, pos + n); pos += n; return s; };
  const arr = (n, depth) => { const a = []; for (let i = 0; i < n; i++) a.push(read(depth + 1)); return a; };
  const map = (n, depth) => {
    const m = {};
    for (let i = 0; i < n; i++) { const k = read(depth + 1); if (typeof k !== "string") throw new Error("non-string key"); m[k] = read(depth + 1); }
    return m;
  };
  const int = (v) => (typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
  const read = (depth) => {
    need(1);
    const b = buf[pos++];
    if (b < 0x80) return b;
    if (b >= 0xe0) return b - 0x100;
    if ((b & 0xf0) === 0x80) { if (depth > 16) throw new Error("too deep"); return map(b & 15, depth); }
    if ((b & 0xf0) === 0x90) { if (depth > 16) throw new Error("too deep"); return arr(b & 15, depth); }
    if ((b & 0xe0) === 0xa0) return str(b & 31);
    const u = (n) => { need(n); const v = buf.readUIntBE(pos, n); pos += n; return v; };
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xca: { need(4); const v = buf.readFloatBE(pos); pos += 4; return v; }
      case 0xcb: { need(8); const v = buf.readDoubleBE(pos); pos += 8; return v; }
      case 0xcc: return u(1);
      case 0xcd: return u(2);
      case 0xce: return u(4);
      case 0xcf: { need(8); const v = buf.readBigUInt64BE(pos); pos += 8; return int(v); }
      case 0xd0: { need(1); const v = buf.readInt8(pos); pos += 1; return v; }
      case 0xd1: { need(2); const v = buf.readInt16BE(pos); pos += 2; return v; }
      case 0xd2: { need(4); const v = buf.readInt32BE(pos); pos += 4; return v; }
      case 0xd3: { need(8); const v = buf.readBigInt64BE(pos); pos += 8; return int(v); }
      case 0xd9: return str(u(1));
      case 0xda: return str(u(2));
      case 0xdb: return str(u(4));
      case 0xdc: if (depth > 16) throw new Error("too deep"); return arr(u(2), depth);
      case 0xdd: if (depth > 16) throw new Error("too deep"); return arr(u(4), depth);
      case 0xde: if (depth > 16) throw new Error("too deep"); return map(u(2), depth);
      case 0xdf: if (depth > 16) throw new Error("too deep"); return map(u(4), depth);
      default: throw new Error(`forbidden msgpack byte 0x${b.toString(16)} (bin, ext or unused)`);
    }
  };
  const value = read(1);
  if (pos !== buf.length) throw new Error("trailing bytes");
  return value;
}

function frame(body) { const h = Buffer.alloc(4); h.writeUInt32BE(body.length); return Buffer.concat([h, body]); }

// ---------------------------------------------------------------- findings

const findings = [];
const notes = [];
let verbose = false;
function problem(where, text) { findings.push(`${where}: ${text}`); if (verbose) console.error(`PROBLEM ${where}: ${text}`); }
function note(where, text) { if (!notes.includes(`${where}: ${text}`)) notes.push(`${where}: ${text}`); }
function check(cond, where, text) { if (!cond) problem(where, text); return !!cond; }
function log(...a) { if (verbose) console.error(...a); }

// ---------------------------------------------------------------- randomness (seeded, so a failure replays)

let rngState = BigInt(Date.now());
function random() {  // splitmix64
  rngState = (rngState + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = rngState;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
}
const randint = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
let names = 0;
const uniq = () => `${++names}${randint(10, 99)}`;  // names in use are refused (§8.1): every player gets its own
const choice = (xs) => xs[Math.floor(random() * xs.length)];
function sample(xs, k) { const a = [...xs]; for (let i = a.length - 1; i > 0; i--) { const j = randint(0, i); [a[i], a[j]] = [a[j], a[i]]; } return a.slice(0, k); }

// ---------------------------------------------------------------- what the documents promise

// PROTOCOL.md §5.1: the keys of each request's `ok` result.
const RESULT_KEYS = {
  list_tables: ["tables", "total", "games", "balance", "features", "server_key", "gateways"], create_table: ["table_id", "seat"],
  join: ["table_id", "seat"], watch: ["table_id"], leave: [], start: [], add_bot: ["seat"],
  remove_bot: [], end_game: [], act: ["seq"], sit_out: [], seed_commit: [], client_seed: [], chat: [], history: ["rounds"],
  offer_rematch: [], answer_rematch: [], past_rounds: ["rounds", "next"], past_games: ["games", "next"],
  replay: ["game_name", "table_id", "round", "seat", "total", "steps", "next"],
  leaderboard: ["by", "game", "players", "total", "rank", "hidden"], set_hidden: [], ping: [],
  list_online: ["players", "total"], invite: [],
  stats: ["uptime_s", "period_s", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "actions_per_s", "requests_per_s",
    "connections", "tables", "tables_playing"],
};
// §5.1 each request's own error codes, plus those any request may get (§5, §7).
const ERRORS = {
  list_tables: [], create_table: ["server_full", "bad_settings", "insufficient_chips", "too_many_tables", "already_at_table", "bad_name"],
  join: ["no_such_table", "wrong_code", "too_many_attempts", "insufficient_chips", "too_many_tables", "already_at_table", "game_running", "no_such_seat", "seat_taken", "table_full"],
  watch: ["no_such_table", "wrong_code", "too_many_attempts", "already_at_table"], leave: ["not_at_table"],
  start: ["not_at_table", "not_host", "game_running", "not_enough_players", "insufficient_chips"],
  add_bot: ["not_at_table", "not_host", "game_running", "table_full", "bad_level"],
  remove_bot: ["not_at_table", "not_host", "game_running", "no_such_seat"], end_game: ["not_at_table", "not_host", "no_game"],
  act: ["not_seated", "no_game", "bad_action", "not_your_turn", "illegal_action"], sit_out: ["not_seated", "no_game"],
  seed_commit: ["not_seated", "no_game", "bad_action", "illegal_action"],
  client_seed: ["not_seated", "no_game", "bad_action", "illegal_action"], chat: ["rate_limited", "not_at_table", "too_long", "busy"],
  history: [], ping: [], stats: [], set_hidden: [], leaderboard: ["no_such_game"], list_online: [],
  invite: ["not_at_table", "not_host", "game_running", "no_such_player", "already_at_table", "table_full"],
};
const ANY_ERRORS = ["rate_limited", "internal", "busy"];
const WELCOME_KEYS = ["type", "id", "version", "server", "player_id", "token", "resumed", "table_id", "seat"];
const SUMMARY_KEYS = ["table_id", "name", "title", "host", "seats", "players", "settings", "state", "private", "spectators"];
const PLAYER_SUMMARY_KEYS = ["seat", "name", "bot", "connected"];
const TABLE_KEYS = ["table_id", "name", "title", "settings", "state", "host_seat", "seat", "members", "spectators", "private", "fixed_seed", "server_key", "rematch", "chip_history"];
const MEMBER_KEYS = ["seat", "name", "bot", "level", "connected", "away"];
const VIEW_KEYS = ["type", "table_id", "table", "game", "decision", "deadline_ms"];
const GAME_KEYS = {
  "down-and-back": ["seat", "phase", "players", "legal", "to_act", "settings", "round", "dealer", "cutter", "turn", "step", "pot", "stock_count", "discard_top", "discard_pile", "round_discards", "called_by", "split", "fair", "log", "showdown", "standings"],
  cribbage: ["seat", "phase", "players", "dealer", "next_dealer", "cutter", "turn", "to_act", "legal", "hand", "discards", "starter", "count", "series", "said_go", "played", "cards_held", "crib", "draws", "stock_count", "target", "sides", "seats", "round", "game", "deal", "in_game", "settings", "counting", "show", "log", "result", "standings", "fair"],
};
const DAB_PLAYER_KEYS = ["seat", "name", "stack", "cards", "in_round", "out", "away", "turns_taken", "contributed", "submitted"];
// Each game's document §5 (and PROTOCOL.md §5.6): the fields every event of a kind carries, the optional ones (`name?`),
// and the fields only the copy sent to the event's own seat may carry.
const COMMON_EVENTS = {
  timeout: ["seat", "offline"], joined: ["seat", "name", "back"], left: ["seat", "name", "held", "offline"],
  offline: ["seat", "name"], online: ["seat", "name"], rematch: ["seat", "seats"], rematch_answer: ["seat", "accept"],
  rematch_cancelled: ["reason", "?seat"], rematch_started: ["table_id"],
  deal_commit: ["round", "version", "commitment", "key", "table_id", "game", "seats", "window_ms", "sig"],
  seed_commit: ["seat", "commit"], seed_set: ["round", "commitment", "commits", "waiting", "after_ms", "sig"], client_seed: ["seat"],
  deck_fixed: ["round", "commitment", "client_seeds", "withheld", "after_ms", "sig"],
  deal_reveal: ["round", "version", "commitment", "key", "table_id", "game", "seats", "window_ms", "seed", "client_seeds", "withheld", "state", "actions", "sig"],
};
const SHOWDOWN_FIELDS = ["round", "reveal", "down_winner", "back_winner", "down_draws", "back_draws", "pot", "winner", "carried"];
const EVENTS = {
  "down-and-back": {
    round: ["round", "dealer", "cutter", "seats", "ante", "pot"], dealer: ["seat", "cutter", "seats"], cut: ["seat", "position", "random"],
    deal: ["seat", "cards", "*hand"], up_card: ["card", "stock"], take_stock: ["seat", "*card"], take_discard: ["seat", "card"],
    discard: ["seat", "card"], skip: ["seat"], call_end: ["seat", "orbit"], reshuffle: ["stock", "up_card"], showdown: ["seats"],
    split_in: ["seat", "*down", "*back"], reveal: ["seat", "down", "back", "down_name", "back_name"],
    result: ["?seat", ...SHOWDOWN_FIELDS], away: ["seat"], back: ["seat"], sit_in: ["seat", "name", "chips"],
    game_over: ["reason", "refunds", "standings"],
  },
  cribbage: {
    new_game: ["game", "target", "stakes"], round: ["round", "game", "deal", "dealer"], draw: ["seat", "position", "random", "card"],
    draw_tie: ["seats", "rank"], dealer: ["seat", "card"], cut: ["seat", "position", "random"], deal: ["seat", "cards", "*hand"],
    crib_card: ["cards"], discard: ["seat", "count", "*cards"], starter: ["seat", "position", "random", "card"],
    heels: ["seat", "reason", "points", "score"], play: ["seat", "card", "count", "reason", "points", "score"], go: ["seat", "count"],
    go_point: ["seat", "reason", "points", "score"], reset: ["seat"], show: ["seat", "what", "cards", "starter", "items", "points", "score"],
    crib_up: ["seat", "cards"], claim: ["seat", "what", "cards", "starter", "claimed", "points", "items", "score"],
    muggins: ["seat", "of", "take", "missed", "points", "items", "score"],
    game_won: ["seat", "game", "winners", "scores", "losses", "gains"], away: ["seat"], back: ["seat"],
    game_over: ["reason", "refunds", "standings"],
  },
};

const CARD_RE = /^(A|[2-9]|10|J|Q|K)[SHDC]$/;
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SORTED_PACK = RANKS.flatMap((r) => ["S", "H", "D", "C"].map((s) => r + s));

function keysCheck(obj, keys, where, { exact = false, optional = [] } = {}) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return problem(where, `not a map: ${JSON.stringify(obj)}`);
  const missing = keys.filter((k) => !(k in obj));
  if (missing.length) problem(where, `missing field(s) ${missing.join(", ")} (has ${Object.keys(obj).join(", ")})`);
  const extra = Object.keys(obj).filter((k) => !keys.includes(k) && !optional.includes(k));
  if (extra.length) (exact ? problem : note)(where, `field(s) the documents do not list: ${extra.join(", ")}`);
}

// ---------------------------------------------------------------- a connection

class Conn {
  constructor(label, port) {
    this.label = label; this.port = port; this.nextId = 1; this.inbox = []; this.waiters = [];
    this.pending = new Map(); this.replies = new Map(); this.sentIds = new Map(); this.buf = Buffer.alloc(0);
    this.closed = false; this.onMessage = null; this.seat = null; this.table = null;
  }
  open() {
    return new Promise((resolve, reject) => {
      this.sock = net.createConnection({ host: "127.0.0.1", port: this.port }, () => resolve(this));
      this.sock.on("error", (e) => { if (!this.closed) reject(e); });
      this.sock.on("data", (d) => this.receive(d));
      this.sock.on("close", () => { this.closed = true; this.wake(); });
    });
  }
  receive(data) {
    this.buf = Buffer.concat([this.buf, data]);
    while (this.buf.length >= 4) {
      const n = this.buf.readUInt32BE(0);
      if (n < 1 || n > 65536) { problem(this.label, `server sent a frame of length ${n}`); this.sock.destroy(); return; }
      if (this.buf.length < 4 + n) return;
      const body = this.buf.subarray(4, 4 + n);
      this.buf = this.buf.subarray(4 + n);
      let msg;
      try { msg = decode(body); } catch (e) { problem(this.label, `server frame is not valid msgpack of §3: ${e.message}`); continue; }
      this.handle(msg);
    }
  }
  handle(msg) {
    if (typeof msg !== "object" || msg === null || typeof msg.type !== "string") { problem(this.label, `message without a type: ${JSON.stringify(msg)}`); return; }
    this.inbox.push(msg);
    if (["ok", "error", "welcome"].includes(msg.type) && msg.id !== null && msg.id !== undefined) {
      this.replies.set(msg.id, (this.replies.get(msg.id) || 0) + 1);
      if (!this.sentIds.has(msg.id)) { if (!this.fatal) problem(this.label, `reply to an id never sent: ${JSON.stringify(msg)}`); }
      else if (this.replies.get(msg.id) > 1) problem(this.label, `second reply to request ${msg.id}: ${JSON.stringify(msg)}`);
      const p = this.pending.get(msg.id);
      if (p) { this.pending.delete(msg.id); p(msg); }
    }
    if (msg.type === "view") { this.view = msg; if (msg.table) { this.seat = msg.table.seat; this.table = msg.table_id; } }
    if (this.onMessage) this.onMessage(msg);
    this.wake();
  }
  wake() { for (const w of [...this.waiters]) w(); }
  /** The first message from index `since` on that `pred` accepts. */
  waitFor(pred, { since = 0, timeout = 10000, what = "a message" } = {}) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { done(); reject(new Error(`${this.label}: timed out waiting for ${what}`)); }, timeout);
      const done = () => { clearTimeout(timer); this.waiters = this.waiters.filter((w) => w !== look); };
      const look = () => {
        for (let i = since; i < this.inbox.length; i++) if (pred(this.inbox[i])) { done(); return resolve(this.inbox[i]); }
        if (this.closed) { done(); reject(new Error(`${this.label}: closed while waiting for ${what}`)); }
      };
      this.waiters.push(look); look();
    });
  }
  mark() { return this.inbox.length; }
  sendRaw(bytes) { this.sock.write(bytes); }
  /** Wait for a token of §10's bucket (20 a second; bursts of only 20, not 40: the server counts a
   *  request when it handles it, which may be later than we sent it), as a polite client does. */
  paced(weight = 1) {  // first come, first served: requests leave in the order they were made
    this.paceChain = (this.paceChain || Promise.resolve()).then(() => this.takeTokens(weight));
    return this.paceChain;
  }
  async takeTokens(weight) {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(20, (this.tokens ?? 20) + ((now - (this.refilled ?? now)) / 1000) * 20);
      this.refilled = now;
      if (this.tokens >= weight) { this.tokens -= weight; return; }
      await new Promise((r) => setTimeout(r, ((weight - this.tokens) / 20) * 1000 + 5));
    }
  }
  /** Send a request; resolve with its reply (checked against §5.1). */
  async request(type, fields = {}, { expect = null } = {}) {
    const pages = (n) => Math.ceil((n ?? (type === "history" ? 10 : 20)) / 10);
    await this.paced({ history: pages(fields.limit), past_rounds: pages(fields.limit), past_games: pages(fields.limit), replay: 5, leaderboard: 2 }[type] || 1);
    const id = this.nextId++;
    if (type === "act" && this.trackAct) { this.lastActId = id; this.trackAct = false; }
    const msg = { type, id, ...fields };
    this.sentIds.set(id, type);
    const reply = new Promise((resolve) => this.pending.set(id, resolve));
    this.sock.write(frame(encode(msg)));
    const timed = new Promise((_, reject) => setTimeout(() => reject(new Error(`${this.label}: no reply to ${type} #${id}`)), 15000));
    return Promise.race([reply, timed]).then((r) => { this.checkReply(type, fields, r, expect); return r; });
  }
  checkReply(type, fields, r, expect) {
    const where = `${this.label} ${type}`;
    if (type === "hello") {
      if (r.type === "welcome") keysCheck(r, WELCOME_KEYS, `${where} welcome`);
    } else if (r.type === "ok") {
      keysCheck(r.result, RESULT_KEYS[type] || [], `${where} result`);
    }
    if (r.type === "error") {
      keysCheck(r, ["type", "id", "code", "message"], `${where} error`, { exact: true });
      const allowed = [...(ERRORS[type] || []), ...ANY_ERRORS];
      if (ERRORS[type] && !allowed.includes(r.code) && r.code !== expect) problem(where, `error code ${r.code} is not in its documented list: ${r.message}`);
    }
    if (expect !== null) {
      const got = r.type === "error" ? r.code : r.type;
      check(got === expect, where, `expected ${expect}, got ${got} ${JSON.stringify(r)} for ${JSON.stringify(fields)}`);
    }
  }
  close() { this.closed = true; this.sock.destroy(); }
  /** Every request sent got exactly one reply (§4). */
  checkAllReplied() {
    for (const [id, type] of this.sentIds) {
      const n = this.replies.get(id) || 0;
      if (n !== 1 && !this.fatal) problem(this.label, `request ${type} #${id} got ${n} replies`);
    }
  }
}

// ---------------------------------------------------------------- the server

async function startServer(command, { dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "stranger-")), extraArgs = [] } = {}) {
  const args = [...command.slice(1), "--host", "127.0.0.1", "--port", "0", "--data-dir", path.join(dataDir, "data"), "--bot-delay", "0",
    "--round-pause", "0", "--new-players-per-hour", "200", ...extraArgs];
  const proc = spawn(command[0], args, { stdio: ["ignore", "ignore", "pipe"], cwd: REPO });
  let stderr = "";
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not say where it listens:\n${stderr}`)), 20000);
    proc.stderr.on("data", (d) => {
      stderr += d.toString();
      const m = stderr.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}:\n${stderr}`)); });
  });
  return { proc, port, dataDir, command, stderr: () => stderr };
}

const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

async function stopServer(server, { keepData = false } = {}) {
  const exited = new Promise((resolve) => server.proc.on("exit", (code, sig) => resolve([code, sig])));
  server.proc.kill("SIGTERM");
  const [code] = await exited;
  check(code === 0, "server", `SIGTERM should stop it with exit code 0 (README), got ${code}`);
  const text = server.stderr();
  if (/Traceback/.test(text)) problem("server", `logged a traceback:\n${text.slice(text.indexOf("Traceback"), text.indexOf("Traceback") + 2000)}`);
  // README, DURABILITY.md: the data directory is 0700 and every file the server made is readable by its owner only.
  const data = path.join(server.dataDir, "data");
  if (fs.existsSync(data)) {
    check((fs.statSync(data).mode & 0o777) === 0o700, "durability", `data directory mode ${(fs.statSync(data).mode & 0o777).toString(8)}`);
    for (const f of fs.readdirSync(data)) {
      const mode = fs.lstatSync(path.join(data, f)).mode & 0o777;
      check((mode & 0o077) === 0, "durability", `${f} has mode ${mode.toString(8)}`);
    }
  }
  if (!keepData) fs.rmSync(server.dataDir, { recursive: true, force: true });
}

async function greet(port, name, token = null) {
  const c = await new Conn(name, port).open();
  const w = await c.request("hello", { version: 2, name, token, client: "stranger 0.1" });
  if (w.type !== "welcome") throw new Error(`${name}: hello refused: ${JSON.stringify(w)}`);
  c.token = w.token; c.playerId = w.player_id; c.welcome = w;
  check(w.version === 2, name, `welcome version ${w.version}`);
  check(w.resumed === (token !== null), name, `welcome resumed ${w.resumed} with token ${token}`);
  return c;
}

// ---------------------------------------------------------------- fairness (FAIRNESS.md §2, version 2)

const u8 = (v) => Buffer.from([v]);
const u16 = (v) => { const b = Buffer.alloc(2); b.writeUInt16BE(v); return b; };
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(v)); return b; };
const str8 = (t) => { const b = Buffer.from(t, "utf8"); return Buffer.concat([u8(b.length), b]); };
const label = (s) => Buffer.concat([Buffer.from(s, "ascii"), Buffer.from([0])]);
const sha256 = (...parts) => crypto.createHash("sha256").update(Buffer.concat(parts)).digest();
const hex = (h) => Buffer.from(h, "hex");

function context(key, game, tableId, round, version = 2) {
  return sha256(label("down-and-back/fair/context"), u16(version), key, str8(game), str8(tableId), u64(round));
}
function commitment(seed, ctx) { return sha256(label("down-and-back/fair/commit"), ctx, seed).toString("hex"); }
function seedCommit(deal, seat, s) {
  return sha256(label("down-and-back/fair/seed-commit"), hex(deal), u32(seat), u8(s.length), s).toString("hex");
}
function clientDigest(seeds) {  // seeds: [[seat, Buffer]]
  const sorted = [...seeds].sort((a, b) => a[0] - b[0]);
  return sha256(label("down-and-back/fair/client-seeds"), ...sorted.flatMap(([seat, s]) => [u32(seat), Buffer.from([s.length]), s]));
}
const seats32 = (seats) => Buffer.concat([u8(seats.length), ...seats.map(u32)]);
function signedMessage(e) {  // §2 "Signatures": from the event's own fields
  const deal = hex(e.commitment);
  if (e.kind === "deal_commit")
    return Buffer.concat([label("down-and-back/fair/sign/deal-commit"), context(hex(e.key), e.game, e.table_id, e.round, e.version), deal, u32(e.window_ms), seats32(e.seats)]);
  if (e.kind === "seed_set")
    return Buffer.concat([label("down-and-back/fair/sign/seed-set"), deal, u32(e.after_ms), u8(e.commits.length),
      ...e.commits.flatMap(([s, c]) => [u32(s), hex(c)]), seats32(e.waiting)]);
  const digest = clientDigest(e.client_seeds.map(([s, h]) => [s, hex(h)]));
  if (e.kind === "deck_fixed")
    return Buffer.concat([label("down-and-back/fair/sign/deck-fixed"), deal, u32(e.after_ms), digest, seats32(e.withheld)]);
  return Buffer.concat([label("down-and-back/fair/sign/reveal"), deal, hex(e.seed), digest]);
}
function signedBy(e, key) {  // Ed25519 (RFC 8032) with node's own crypto
  if (typeof e.sig !== "string" || !/^[0-9a-f]{128}$/.test(e.sig)) return false;
  const spki = Buffer.concat([hex("302a300506032b6570032100"), key]);
  return crypto.verify(null, signedMessage(e), crypto.createPublicKey({ key: spki, format: "der", type: "spki" }), hex(e.sig));
}
function fingerprint(key) {
  const blob = Buffer.concat([u32(11), Buffer.from("ssh-ed25519"), u32(32), key]);
  return "SHA256:" + crypto.createHash("sha256").update(blob).digest("base64").replace(/=+$/, "");
}
class Stream {
  constructor(seed, ctx, digest) { Object.assign(this, { seed, ctx, digest }); this.k = 0; this.bits = []; }
  bit() {
    if (!this.bits.length) {
      const block = crypto.createHmac("sha256", this.seed).update(Buffer.concat([label("down-and-back/fair/stream"), this.ctx, this.digest, u64(this.k++)])).digest();
      for (const byte of block) for (let i = 7; i >= 0; i--) this.bits.push((byte >> i) & 1);
      this.bits.reverse();
    }
    return this.bits.pop();
  }
  below(n) {
    if (n === 1) return 0;
    const w = (n - 1).toString(2).length;
    for (;;) { let x = 0; for (let i = 0; i < w; i++) x = x * 2 + this.bit(); if (x < n) return x; }
  }
  shuffle(list) { const a = [...list]; for (let i = a.length - 1; i > 0; i--) { const j = this.below(i + 1); [a[i], a[j]] = [a[j], a[i]]; } return a; }
}

function selfTestFairness() {
  const where = "FAIRNESS.md §5";
  const seed = Buffer.from([...Array(32).keys()]);
  const key = hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const ctx = context(key, "down-and-back", "t1", 1);
  check(ctx.toString("hex") === "2dff21dfd882888e2a3129776d5c4ad994641049f24a2a014cddbeaf82005598", where, "context test vector");
  const deal = commitment(seed, ctx);
  check(deal === "2b1bbf2cf6d52b8c0736b37994b698719d5440bce06ec85c3d392c3bc9decc86", where, "commitment test vector");
  check(seedCommit(deal, 0, hex("00112233")) === "89f66a17f3c6f159df36bf451b2829b03a43bf5e02b541e595ff6c498eb4edfd", where, "seed commitment test vector");
  const seeds = [[0, hex("00112233")], [2, hex("ff")]];
  const digest = clientDigest(seeds);
  check(digest.toString("hex") === "8676b38629f6cf85032c3b4d175306ae4322fac1ca5c4692211f6c30dbc11686", where, "client digest test vector");
  const deck = new Stream(seed, ctx, digest).shuffle(SORTED_PACK).join(" ");
  check(deck === "10C 9D 9H 6H 3D 6C 2S 2H AH 4H 10S 7H 5D JD 3H 4C 2D 9S KH QH 5H AS 10H QS JS KD 7S KS QD 8C AC 6S QC 10D JH 5S 8S 7C 7D 8H JC KC 5C 2C 3C 3S 4D 6D 8D 4S AD 9C",
    where, `shuffle test vector, got ${deck}`);
  check(fingerprint(key) === "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8", where, "fingerprint test vector");
  const commitEvent = { kind: "deal_commit", round: 1, version: 2, commitment: deal, key: key.toString("hex"), table_id: "t1", game: "down-and-back",
    seats: [0, 1, 2], window_ms: 3000, sig: "c2582ce7d102ea4fca9331457168c9b2592b330a70e00cdb48242661e6baadfdec66880da27a72f529013c32847443db7326018b528f211d43a85fc3d2fa960f" };
  check(signedBy(commitEvent, key), where, "deal_commit signature test vector");
  check(!signedBy({ ...commitEvent, window_ms: 3001 }, key), where, "a changed deal_commit still verified");
}

/** Follows one connection's rounds: commitments, seed phases, signatures, and the deal and draws. */
class FairWatcher {
  constructor(conn, game) { this.conn = conn; this.game = game; this.rounds = new Map(); this.verified = 0; }
  event(e) {
    const where = `${this.conn.label} fair`;
    const r = this.current;
    if (e.kind === "deal_commit") {
      this.current = { round: e.round, commit: e, events: [], mine: null, myCommit: null };
      this.rounds.set(e.round, this.current);
      const key = /^[0-9a-f]{64}$/.test(e.key || "") ? hex(e.key) : null;
      check(e.version === 2 && /^[0-9a-f]{64}$/.test(e.commitment) && key && e.table_id === this.conn.tableId && e.game === this.game,
        where, `deal_commit ${JSON.stringify(e)}`);
      if (key && this.conn.serverKey) check(e.key === this.conn.serverKey, where, `deal_commit signed by ${fingerprint(key)}, not the key the table shows`);
      if (key) check(signedBy(e, key), where, `round ${e.round}: the deal_commit's signature does not verify (signature)`);
      return;
    }
    if (!r) return;
    const key = hex(r.commit.key);
    if (e.kind === "seed_set") {
      r.sealed = e;
      check(signedBy(e, key), where, `round ${r.round}: the seed_set's signature does not verify (signature)`);
      const missing = e.waiting.filter((s) => !e.commits.some(([t]) => t === s));
      check(!missing.length || e.after_ms >= r.commit.window_ms, where, `round ${r.round}: sealed after ${e.after_ms} ms without seat ${missing} it waited for (window)`);
      if (r.myCommit) {
        const mine = e.commits.find(([s]) => s === this.conn.seat);
        if (mine && mine[1] === r.myCommit) revealSeed(this.conn, r);
        else check(e.after_ms >= r.commit.window_ms, where, `round ${r.round}: my commitment is not in the seed set, sealed before the window`);
      }
    } else if (e.kind === "deck_fixed") {
      r.fixed = e;
      check(signedBy(e, key), where, `round ${r.round}: the deck_fixed's signature does not verify (signature)`);
      for (const [s, h] of e.client_seeds)
        check(r.sealed && r.sealed.commits.some(([t, c]) => t === s && c === seedCommit(r.commit.commitment, s, hex(h))), where,
          `round ${r.round}: seat ${s}'s seed matches no commitment of the seed set (late seed)`);
      if (e.withheld.length) check(e.after_ms >= r.sealed.after_ms + r.commit.window_ms, where, `round ${r.round}: reveals closed early (window)`);
    } else if (e.kind === "deal_reveal") this.reveal(r, e, where);
    if (!["seed_commit", "seed_set", "client_seed", "deck_fixed", "deal_reveal"].includes(e.kind)) r.events.push(e);
  }
  reveal(r, e, where) {
    this.current = null;
    const c = r.commit;
    if (!check(["round", "commitment", "key", "table_id", "game", "version"].every((k) => e[k] === c[k]), where, `reveal of round ${e.round} does not match its commitment (commitment)`)) return;
    const seed = hex(e.seed), ctx = context(hex(c.key), c.game, c.table_id, c.round);
    if (!check(commitment(seed, ctx) === c.commitment, where, `round ${e.round}: revealed seed does not hash to the commitment`)) return;
    check(signedBy(e, hex(c.key)), where, `round ${e.round}: the reveal's signature does not verify (signature)`);
    if (r.fixed) check(JSON.stringify(r.fixed.client_seeds) === JSON.stringify(e.client_seeds), where, `round ${e.round}: the deck was fixed from ${JSON.stringify(r.fixed.client_seeds)}, revealed ${JSON.stringify(e.client_seeds)}`);
    if (r.mine) check(e.client_seeds.some(([s, h]) => s === this.conn.seat && h === r.mine), where, `round ${e.round}: my accepted seed is not among the revealed ones`);
    check(JSON.stringify(e.state && (e.state.deck || e.state.pack)) === JSON.stringify(SORTED_PACK) || !(e.state && (e.state.deck || e.state.pack)), where,
      `round ${e.round}: the state's pack is not the sorted pack`);
    const stream = new Stream(seed, ctx, clientDigest(e.client_seeds.map(([s, h]) => [s, hex(h)])));
    if (this.game === "down-and-back") this.checkDownAndBackDeal(r, stream, where);
    else this.checkCribbageDeal(r, stream, where, e);
    this.verified++;
  }
  checkDownAndBackDeal(r, stream, where) {
    const ev = (k) => r.events.find((x) => x.kind === k);
    const start = this.roundEvents?.get(r.round), cut = ev("cut");
    if (!cut || !start) return;  // a round whose deal this connection did not see
    let seats = start.seats;
    if (start.dealer === null) {  // §3.4: the game's first dealer is the stream's first draw, seats ascending
      const drawn = [...start.seats].sort((a, b) => a - b)[stream.below(start.seats.length)], told = ev("dealer");
      if (!check(told && told.seat === drawn, where, `round ${r.round}: first dealer ${told && told.seat}, the deal draws ${drawn} (first dealer)`)) return;
      seats = told.seats;
    }
    let deck = stream.shuffle(SORTED_PACK);
    if (cut.random) stream.below(52 - 8 + 1);
    deck = [...deck.slice(cut.position), ...deck.slice(0, cut.position)];
    const hands = Object.fromEntries(seats.map((s) => [s, []]));
    let i = 0;
    for (let k = 0; k < 7; k++) for (const s of seats) hands[s].push(deck[i++]);
    const up = deck[i++];
    const myDeal = r.events.find((x) => x.kind === "deal" && x.seat === this.conn.seat && x.hand);
    if (myDeal) check(JSON.stringify(myDeal.hand) === JSON.stringify(hands[this.conn.seat]), where, `round ${r.round}: dealt hand ${myDeal.hand} is not the committed deck's ${hands[this.conn.seat]} (dealt hand)`);
    check(ev("up_card")?.card === up, where, `round ${r.round}: up card ${ev("up_card")?.card} is not the deck's ${up}`);
    for (const x of r.resumed ? [] : r.events) {  // the stock is the rest of the deck, top first, until a reshuffle
      if (x.kind === "reshuffle") break;
      if (x.kind === "take_stock") {
        const card = deck[i++];
        if ("card" in x) check(x.card === card, where, `round ${r.round}: stock card ${x.card}, the deck says ${card} (stock card)` + (verbose ? ` events ${JSON.stringify(r.events.map((e) => [e.kind, e.seat, e.card]))} deck ${deck}` : ""));
      }
    }
  }
  checkCribbageDeal(r, stream, where) {
    // FAIRNESS.md §3: round 1 begins with the draw for the deal, from one shuffled pack; then the dealer
    // shuffles the sorted pack for the deal. Later rounds: the sorted pack shuffled, then the cut before the deal.
    const deal = r.events.filter((x) => x.kind === "deal"), cut = r.events.find((x) => x.kind === "cut");
    const draws = r.events.filter((x) => x.kind === "draw");
    if (!cut || r.events.some((x) => x.kind === "draw_tie")) return;  // a redraw: not followed here
    if (draws.length) {  // each seat cuts the pack as it lies, less the cards drawn before: it draws the card at the cut
      let pack = stream.shuffle(SORTED_PACK);
      for (const d of draws) {
        if (d.random) stream.below(pack.length - 8 + 1);
        check(pack[d.position] === d.card, where, `cribbage round ${r.round}: seat ${d.seat} cut ${d.position} and drew ${d.card}; the committed pack has ${pack[d.position]} there (draw for the deal)`);
        pack = pack.filter((c) => c !== d.card);
      }
    }
    let deck = stream.shuffle(SORTED_PACK);
    if (cut.random) stream.below(52 - 8 + 1);
    deck = [...deck.slice(cut.position), ...deck.slice(0, cut.position)];
    const mine = deal.find((x) => x.seat === this.conn.seat && x.hand);
    if (!mine) return;
    const order = deal.map((x) => x.seat);  // the deal events come from the dealer's left
    const n = mine.cards, hands = Object.fromEntries(order.map((s) => [s, []]));
    let i = 0;
    for (let k = 0; k < n; k++) for (const s of order) hands[s].push(deck[i++]);
    check(JSON.stringify([...mine.hand].sort()) === JSON.stringify([...hands[this.conn.seat]].sort()), where,
      `cribbage round ${r.round}: dealt hand ${mine.hand} is not the committed deck's ${hands[this.conn.seat]} (dealt hand)`);
    this.verifiedDeals = (this.verifiedDeals || 0) + 1;
  }
}

// ---------------------------------------------------------------- hidden information

/** Cards a message may show the receiver, by where they are; anything else is a leak. */
function checkHidden(conn, msg) {
  const me = conn.seat;
  const where = `${conn.label} hidden`;
  const walkCards = (v, pathName, out) => {
    if (typeof v === "string" && CARD_RE.test(v)) out.push([pathName, v]);
    else if (Array.isArray(v)) v.forEach((x, i) => walkCards(x, `${pathName}[${i}]`, out));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walkCards(x, `${pathName}.${k}`, out);
    return out;
  };
  const ownFields = { deal: ["hand"], take_stock: ["card"], split_in: ["down", "back"], discard_cribbage: ["cards"] };
  const checkEvent = (e, game, ctx) => {
    const fields = game === "cribbage" && e.kind === "discard" ? ownFields.discard_cribbage : (e.kind === "discard" ? [] : ownFields[e.kind] || []);
    if (e.seat !== me || me === null || me === undefined) for (const f of fields) if (f in e) problem(where, `${ctx}: ${e.kind} of seat ${e.seat} carries its private ${f} ${JSON.stringify(e[f])} to seat ${me}`);
  };
  if (msg.type === "event") {
    const game = conn.game;
    for (const e of msg.events) checkEvent(e, game, "event");
  }
  if (msg.type === "view" && msg.game) {
    const g = msg.game, game = msg.table.settings.game;
    for (const e of g.log || []) checkEvent(e, game, "view.log");
    if (g.seat !== me) problem(where, `view.game.seat ${g.seat} but table.seat ${me}`);
    if (game === "down-and-back") {
      if (me === null && "hand" in g) problem(where, `a spectator's view has a hand ${JSON.stringify(g.hand)}`);
      if (g.split && (me === null)) problem(where, "a spectator's view has a split");
      // No card outside the public places and the seat's own hand/split.
      const publicKeys = ["discard_top", "discard_pile", "round_discards", "showdown", "log", "hand", "split", "legal", "fair"];
      for (const [p, c] of walkCards(Object.fromEntries(Object.entries(g).filter(([k]) => !publicKeys.includes(k))), "game", []))
        problem(where, `card ${c} at ${p}`);
      for (const p of g.players) if ("hand" in p || "down" in p) problem(where, `player map of seat ${p.seat} carries cards`);
    } else {
      if (me === null && g.hand.length) problem(where, `a spectator's view has a hand ${g.hand}`);
      if (me === null && g.discards.length) problem(where, `a spectator's view has discards ${g.discards}`);
      if (typeof g.crib?.cards !== "number") problem(where, `crib.cards is not a count: ${JSON.stringify(g.crib)}`);
      const publicKeys = ["hand", "discards", "starter", "series", "played", "draws", "counting", "show", "log", "result", "legal", "fair"];
      for (const [p, c] of walkCards(Object.fromEntries(Object.entries(g).filter(([k]) => !publicKeys.includes(k))), "game", []))
        problem(where, `card ${c} at ${p}`);
    }
  }
}

// ---------------------------------------------------------------- the shape of views and events

function checkShapes(conn, msg) {
  const where = conn.label;
  if (msg.type === "tables") {
    keysCheck(msg, ["type", "tables"], `${where} tables push`, { exact: true });
    for (const t of msg.tables) checkSummary(t, `${where} tables push`);
  }
  if (msg.type === "view") {
    keysCheck(msg, VIEW_KEYS, `${where} view`, { exact: true });
    keysCheck(msg.table, TABLE_KEYS, `${where} view.table`);
    for (const m of msg.table.members) keysCheck(m, MEMBER_KEYS, `${where} view.table.members`);
    const game = msg.table.settings.game;
    if (msg.game) {
      const seated = game === "down-and-back" && msg.table.seat !== null ? ["hand"] : [];
      keysCheck(msg.game, [...GAME_KEYS[game], ...seated], `${where} ${game} view.game`);
      if (game === "down-and-back") for (const p of msg.game.players) keysCheck(p, DAB_PLAYER_KEYS, `${where} ${game} player map`);
      if (msg.decision !== null && !Array.isArray(msg.decision)) problem(where, `decision ${JSON.stringify(msg.decision)}`);
      if (["waiting", "over"].includes(msg.game.phase) && (msg.decision !== null || msg.game.to_act.length || msg.game.legal.length))
        problem(where, `${game} phase ${msg.game.phase} with decision ${JSON.stringify(msg.decision)}, to_act ${msg.game.to_act}, legal ${JSON.stringify(msg.game.legal)}`);
      if (msg.decision !== null && msg.decision[0] !== msg.game.round) problem(where, `decision ${JSON.stringify(msg.decision)} does not start with the round ${msg.game.round}`);
      if (msg.decision !== null && msg.decision[1] !== msg.game.phase) problem(where, `decision ${JSON.stringify(msg.decision)} does not name the phase ${msg.game.phase}`);
    }
    if (msg.deadline_ms !== null && !(Number.isInteger(msg.deadline_ms) && msg.deadline_ms >= 0)) problem(where, `deadline_ms ${msg.deadline_ms}`);
    if (msg.decision === null && msg.deadline_ms !== null) problem(where, `a deadline (${msg.deadline_ms}) runs with no decision awaited`);
    if (msg.game && msg.decision !== null) {  // §5.2: nil exactly while every seat awaited is a bot or away
      const bySeat = Object.fromEntries(msg.table.members.map((m) => [m.seat, m]));
      const onClock = msg.game.to_act.filter((s) => bySeat[s] && !bySeat[s].bot && !bySeat[s].away);
      if (!onClock.length && msg.deadline_ms !== null) problem(where, `deadline ${msg.deadline_ms} while only bots/away seats ${msg.game.to_act} are awaited`);
      if (onClock.length && onClock.some((s) => bySeat[s].connected) && msg.deadline_ms === null) problem(where, `no deadline while ${onClock} are awaited`);
    }
  }
  if (msg.type === "event") {
    if (!(msg.events.length >= 1 && msg.events.length <= 200)) problem(where, `event push with ${msg.events.length} events`);
    for (const e of msg.events) checkEvent(conn, e, `${where} event`);
  }
}

function checkEvent(conn, e, where) {
  const game = conn.game;
  const spec = COMMON_EVENTS[e.kind] || (EVENTS[game] || {})[e.kind];
  if (!spec) { note(where, `${game}: event kind ${e.kind} is not in the documents: ${JSON.stringify(e).slice(0, 200)}`); return; }
  const required = spec.filter((f) => !f.startsWith("?") && !f.startsWith("*"));
  const optional = spec.filter((f) => f.startsWith("?") || f.startsWith("*")).map((f) => f.slice(1));
  keysCheck(e, ["kind", ...required], `${where} ${game} ${e.kind}`, { optional });
}

function checkSummary(t, where) {
  keysCheck(t, SUMMARY_KEYS, `${where} table summary`, { exact: true });
  for (const p of t.players || []) keysCheck(p, PLAYER_SUMMARY_KEYS, `${where} player summary`, { exact: true });
}

// ---------------------------------------------------------------- the rules, checked from the events

const rankOf = (c) => c.slice(0, -1), suitOf = (c) => c.slice(-1), ordOf = (c) => RANKS.indexOf(rankOf(c)) + 1;
const pips = (c) => Math.min(10, ordOf(c));

/** Cribbage's show (rules "The show"): a hand of four with the starter; the crib's flush needs all five. */
function showPoints(hand, starter, crib) {
  const all = [...hand, starter];
  let points = 0;
  for (let mask = 1; mask < 32; mask++) if (all.filter((_, i) => mask & (1 << i)).reduce((a, c) => a + pips(c), 0) === 15) points += 2;
  for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) if (rankOf(all[i]) === rankOf(all[j])) points += 2;
  for (let size = 5; size >= 3; size--) {
    let runs = 0;
    for (let mask = 1; mask < 32; mask++) {
      const pick = all.filter((_, i) => mask & (1 << i));
      if (pick.length !== size) continue;
      const ords = pick.map(ordOf).sort((a, b) => a - b);
      if (new Set(ords).size === size && ords[size - 1] - ords[0] === size - 1) runs++;
    }
    if (runs) { points += runs * size; break; }
  }
  const suit = suitOf(hand[0]);
  if (hand.every((c) => suitOf(c) === suit)) {
    if (suitOf(starter) === suit) points += 5; else if (!crib) points += 4;
  }
  if (hand.some((c) => rankOf(c) === "J" && suitOf(c) === suitOf(starter))) points += 1;
  return points;
}

/** Cribbage's play: what the card just laid pegs, from the cards laid since the last reset. */
function playPoints(series) {
  const count = series.reduce((a, c) => a + pips(c), 0);
  let points = count === 15 || count === 31 ? 2 : 0;
  let same = 1;
  while (same < series.length && rankOf(series[series.length - 1 - same]) === rankOf(series[series.length - 1])) same++;
  points += { 1: 0, 2: 2, 3: 6, 4: 12 }[same];
  for (let size = series.length; size >= 3; size--) {
    const ords = series.slice(-size).map(ordOf).sort((a, b) => a - b);
    if (new Set(ords).size === size && ords[size - 1] - ords[0] === size - 1) { points += size; break; }
  }
  return { count, points };
}

// Down and Back's hands (rules "Going-down hands", "Coming-back hands"): a key that compares best-first.
const FACE = (c) => ["J", "Q", "K"].includes(rankOf(c));
const desc = (cards) => cards.map(ordOf).sort((a, b) => b - a);
function straight(cards) { const o = desc(cards); return new Set(o).size === o.length && o[0] - o[o.length - 1] === o.length - 1; }
const oneSuit = (cards) => cards.every((c) => suitOf(c) === suitOf(cards[0]));
function pairs(cards) {  // [pair, others] for every choice of two cards of one rank
  const out = [];
  for (let i = 0; i < cards.length; i++) for (let j = i + 1; j < cards.length; j++)
    if (rankOf(cards[i]) === rankOf(cards[j])) out.push([[cards[i], cards[j]], cards.filter((_, k) => k !== i && k !== j)]);
  return out;
}
function downKey(h) {  // 8 Quad .. 1 High card
  const byRank = {};
  for (const c of h) (byRank[rankOf(c)] ||= []).push(c);
  const groups = Object.values(byRank).sort((a, b) => b.length - a.length || ordOf(b[0]) - ordOf(a[0]));
  if (groups[0].length === 4) return [8, ordOf(groups[0][0])];
  if (groups[0].length === 3) {
    const [three, [fourth]] = [groups[0], groups[1]];
    const missing = ["S", "H", "D", "C"].find((x) => !three.some((c) => suitOf(c) === x));
    if (suitOf(fourth) === missing || FACE(fourth)) return [7, ordOf(three[0])];
  }
  if (oneSuit(h) && straight(h)) return [6, desc(h)[0]];
  if (straight(h)) return [5, desc(h)[0]];
  if (oneSuit(h)) return [4, ...desc(h)];
  if (groups[0].length === 2 && groups[1].length === 2) return [3, ordOf(groups[0][0]), ordOf(groups[1][0])];
  let best = null;
  for (const [pair, odd] of pairs(h)) {
    const pairSuits = pair.map(suitOf), faces = odd.filter(FACE).length;
    const ok = faces === 2 || (faces === 0 && suitOf(odd[0]) !== suitOf(odd[1]) && odd.every((c) => !pairSuits.includes(suitOf(c))))
      || (faces === 1 && !pairSuits.includes(suitOf(odd.find((c) => !FACE(c)))));
    if (ok) { const key = [2, ordOf(pair[0]), ...desc(odd)]; if (!best || compareKeys(key, best) > 0) best = key; }
  }
  return best || [1, ...desc(h)];
}
function backKey(h) {  // 6 Prial .. 1 High card
  if (h.every((c) => rankOf(c) === rankOf(h[0]))) return [6, ordOf(h[0])];
  if (oneSuit(h) && straight(h)) return [5, desc(h)[0]];
  if (straight(h)) return [4, desc(h)[0]];
  if (oneSuit(h)) return [3, ...desc(h)];
  for (const [pair, [third]] of pairs(h)) if (FACE(third) || !pair.map(suitOf).includes(suitOf(third))) return [2, ordOf(pair[0]), ordOf(third)];
  return [1, ...desc(h)];
}
function compareKeys(a, b) { for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0); return 0; }

/** The rules' counts over every hand: my evaluator must reproduce them before it judges the server's showdowns. */
function selfTestHands() {
  const counts4 = [0, 0, 0, 0, 0, 0, 0, 0, 0], counts3 = [0, 0, 0, 0, 0, 0, 0];
  const P = SORTED_PACK;
  for (let a = 0; a < 52; a++) for (let b = a + 1; b < 52; b++) for (let c = b + 1; c < 52; c++) {
    counts3[backKey([P[a], P[b], P[c]])[0]]++;
    for (let d = c + 1; d < 52; d++) counts4[downKey([P[a], P[b], P[c], P[d]])[0]]++;
  }
  check(JSON.stringify(counts4.slice(1).reverse()) === JSON.stringify([13, 1056, 40, 2520, 2820, 2808, 25308, 236160]), "rules self-test", `4-card counts ${counts4.slice(1).reverse()}`);
  check(JSON.stringify(counts3.slice(1).reverse()) === JSON.stringify([52, 44, 660, 1100, 2304, 17940]), "rules self-test", `3-card counts ${counts3.slice(1).reverse()}`);
}

/** Follows one seat's events and checks them against the rules files. */
class RulesWatcher {
  constructor(game, where) { Object.assign(this, { game, where }); this.series = []; this.carried = 0; this.lastDealer = null; this.counted = 0; }
  event(e) {
    const where = `${this.where} rules`;
    if (this.game === "down-and-back") {
      if (e.kind === "round" && e.dealer === null) {  // the game's first round: its dealer is drawn from the deal (§5 dealer)
        check(e.cutter === null && this.lastDealer === null && JSON.stringify(e.seats) === JSON.stringify([...e.seats].sort((a, b) => a - b)),
          where, `round ${e.round}: a round without a dealer that is not the game's first, or whose seats are not ascending`);
        this.firstRound = e;
        return;
      }
      if (e.kind === "dealer") e = { ...this.firstRound, kind: "round", dealer: e.seat, cutter: e.cutter, seats: e.seats };
      if (e.kind === "round") {
        const n = e.seats.length;
        check(e.dealer === e.seats[n - 1], where, `round ${e.round}: the dealer ${e.dealer} is not the last of the play order ${e.seats}`);
        check(e.cutter === e.seats[n - 2], where, `round ${e.round}: the cutter ${e.cutter} is not the dealer's right (${e.seats})`);
        check(e.pot === e.ante * n + this.carried, where, `round ${e.round}: pot ${e.pot}, antes ${e.ante}×${n} + carried ${this.carried}`);
        if (this.lastDealer !== null) {
          const next = [...e.seats].sort((a, b) => a - b).find((s) => s > this.lastDealer) ?? Math.min(...e.seats);
          check(e.dealer === next, where, `round ${e.round}: the deal went to ${e.dealer}, not one seat clockwise from ${this.lastDealer} (${next})`);
        }
        const order = [...e.seats].sort((a, b) => a - b), i = order.indexOf(e.dealer);
        check(JSON.stringify(e.seats) === JSON.stringify([...order.slice(i + 1), ...order.slice(0, i + 1)]), where, `round ${e.round}: play order ${e.seats} is not clockwise from the dealer's left`);
        this.lastDealer = e.dealer;
      }
      if (e.kind === "result") {
        check(("seat" in e) === (e.winner !== null) && (!("seat" in e) || e.seat === e.winner), where, `result's seat? ${e.seat} with winner ${e.winner}`);
        for (const [half, keyOf, winner, draws] of [["down", downKey, e.down_winner, e.down_draws], ["back", backKey, e.back_winner, e.back_draws]]) {
          const keys = e.reveal.map((r) => [r.seat, keyOf(r[half])]);
          const top = keys.reduce((a, [, k]) => (compareKeys(k, a) > 0 ? k : a), keys[0][1]);
          const tied = keys.filter(([, k]) => compareKeys(k, top) === 0).map(([s]) => s).sort();
          if (tied.length === 1) check(winner === tied[0] && draws.length === 0, where, `round ${e.round} ${half}: the rules make seat ${tied[0]} best (${JSON.stringify(keys)}), the server says ${winner}`);
          else {
            check(JSON.stringify(draws[0]?.map((d) => d.seat).sort()) === JSON.stringify(tied), where, `round ${e.round} ${half}: seats ${tied} tie, the draws are ${JSON.stringify(draws)}`);
            const last = draws[draws.length - 1] || [], high = Math.max(...last.map((d) => ordOf(d.card)));
            const top2 = last.filter((d) => ordOf(d.card) === high);
            check(top2.length === 1 && top2[0].seat === winner, where, `round ${e.round} ${half}: tie-break ${JSON.stringify(draws)} won by ${winner}`);
          }
        }
        const both = e.down_winner === e.back_winner;
        check(e.winner === (both ? e.down_winner : null) && e.carried === (both ? 0 : e.pot), where, `result ${JSON.stringify(e)}: the pot goes to whoever wins both, else it carries`);
        this.carried = e.carried;
      }
    } else {
      if (e.kind === "round" || e.kind === "reset") this.series = [];
      if (e.kind === "play") {
        this.series.push(e.card);
        const { count, points } = playPoints(this.series);
        check(e.count === count && count <= 31, where, `play ${e.card}: count ${e.count}, the series ${this.series} makes ${count}`);
        check(e.points === points, where, `play ${e.card} after ${this.series.slice(0, -1)}: pegged ${e.points} (${e.reason}), the rules give ${points}`);
      }
      if (e.kind === "show") {
        const points = showPoints(e.cards, e.starter, e.what === "crib");
        check(e.points === points, where, `show of ${e.what} ${e.cards} + ${e.starter}: ${e.points}, the rules give ${points}`);
        check(e.items.reduce((a, it) => a + it.points, 0) === e.points, where, `show items do not add up to ${e.points}`);
        this.counted++;
      }
      if (e.kind === "claim") {
        const worth = showPoints(e.cards, e.starter, e.what === "crib");
        check(e.points === Math.min(e.claimed, worth), where, `claim of ${e.claimed} for ${e.cards} + ${e.starter} (worth ${worth}) pegged ${e.points}`);
        this.counted++;
      }
      if (e.kind === "muggins") check(e.points === (e.take ? e.missed : 0), where, `muggins ${JSON.stringify(e)}`);
    }
  }
}

// ---------------------------------------------------------------- playing

/** Choose an action at random among what the view's `legal` list allows (each game's document §4). */
function randomAction(game, g) {
  const entry = choice(g.legal);
  switch (entry.kind) {
    case "cut": return { kind: "cut", position: random() < 0.2 ? null : randint(entry.min, entry.max) };
    case "discard":
      if (game === "cribbage") return { kind: "discard", cards: sample(entry.cards, entry.count) };
      return { kind: "discard", card: choice(entry.cards) };
    case "split": { const h = sample(g.hand, 7); return { kind: "split", down: h.slice(0, 4), back: h.slice(4) }; }
    case "play": return { kind: "play", card: choice(entry.cards) };
    case "claim": return { kind: "claim", points: randint(entry.min, entry.max) };
    case "muggins": return { kind: "muggins", take: random() < 0.5 };
    default: return { kind: entry.kind };
  }
}

/** Drive one seat: act on every new decision that is ours; check chips on every view. */
function autoplay(conn, game, { totalChips }) {
  conn.game = game;
  conn.lastDecision = null; conn.acting = false; conn.fair = conn.fair || new FairWatcher(conn, game);
  conn.fair.roundEvents = conn.fair.roundEvents || new Map();
  conn.paused = false;
  conn.onMessage = (msg) => {
    checkShapes(conn, msg);
    checkHidden(conn, msg);
    if (msg.type === "event") conn.tableId = msg.table_id;
    if (msg.type === "view") conn.serverKey = msg.table.server_key;
    if (msg.type === "event") for (const e of msg.events) {
      if (conn.rules) conn.rules.event(e);
      if (e.kind === "sit_in") conn.sitIns = (conn.sitIns || 0) + e.chips;  // a newcomer's buy-in joins the table's chips
      if (e.kind === "round") conn.fair.roundEvents.set(e.round, e);
      conn.fair.event(e);
      if (e.kind === "deal_commit" && conn.seat !== null && conn.sendSeeds && e.seats.includes(conn.seat)) commitSeed(conn, e);
    }
    if (msg.type === "view" && msg.game) {
      // §4: dab-server sends each reply before the pushes its request caused, so while our act awaits its
      // reply the decision we acted on (ours: nobody else can end it) must not have moved on.
      // (The reply's arrival is read from the stream itself: a promise's continuation runs later.)
      // A game another member ended meanwhile (end_game) is not our act's doing.
      if (conn.lastActId && !conn.replies.has(conn.lastActId) && JSON.stringify(msg.decision) !== conn.actedOn && msg.table.state !== "finished")
        problem(conn.label, `a view with decision ${JSON.stringify(msg.decision)} came before the reply to our act on ${conn.actedOn}`);
      checkChips(conn, game, msg, totalChips);
      maybeAct(conn, game, msg);
    }
  };
}

// FAIRNESS.md §3: commit as the deal_commit arrives, reveal as the seed set holding the commitment does.
async function commitSeed(conn, commit) {
  const fr = conn.fair.rounds.get(commit.round);
  const seed = crypto.randomBytes(32);
  const value = seedCommit(commit.commitment, conn.seat, seed);
  if (fr) { fr.seed = seed; fr.myCommit = value; }
  conn.seeds = conn.seeds || { sent: 0, accepted: 0 };
  conn.seeds.sent++;
  const r = await conn.request("seed_commit", { commit: value });
  if (r.type !== "ok" && r.code !== "illegal_action" && r.code !== "no_game") problem(conn.label, `seed_commit right after deal_commit refused: ${JSON.stringify(r)}`);
  else if (r.type !== "ok") note(conn.label, `seed_commit sent as the deal_commit arrived was refused: ${r.message}`);
}
async function revealSeed(conn, fr) {
  const r = await conn.request("client_seed", { seed: fr.seed.toString("hex") });
  if (r.type === "ok") { conn.seeds.accepted++; fr.mine = fr.seed.toString("hex"); }
  else problem(conn.label, `client_seed sent as the seed set holding my commitment arrived was refused: ${JSON.stringify(r)}`);
}

function maybeAct(conn, game, view) {
  const g = view.game;
  if (conn.paused || conn.closed || view.decision === null || !g.legal.length || !g.to_act.includes(conn.seat)) return;
  // The decision id alone does not do: Down and Back's call_end leaves the seat the same decision (it still draws).
  const key = JSON.stringify([view.decision, g.legal]);
  if (key === conn.lastDecision || conn.acting) return;
  conn.lastDecision = key; conn.acting = true; conn.actedOn = JSON.stringify(view.decision); conn.trackAct = true;
  const action = randomAction(game, g);
  log(conn.label, JSON.stringify(view.decision), JSON.stringify(g.legal).slice(0, 80), "->", JSON.stringify(action));
  conn.actions = (conn.actions || 0) + 1;
  conn.actPromise = conn.request("act", { action }).then((r) => {
    conn.acting = false;
    if (r.type !== "ok") {
      // A legal action of the latest view may lose a race only to a newer view.
      if (conn.view === view) problem(conn.label, `${game}: legal action ${JSON.stringify(action)} of the latest view refused: ${r.code} ${r.message}`);
      else note(conn.label, `${game}: act refused after a newer view: ${r.code}`);
    }
    if (conn.view !== view) maybeAct(conn, game, conn.view);
  }).catch((e) => { conn.acting = false; if (!conn.closed) problem(conn.label, e.message); });
}

function checkChips(conn, game, view, totalChips) {
  const g = view.game;
  if (game === "down-and-back") {
    const sum = g.players.reduce((a, p) => a + p.stack, 0) + g.pot - (conn.sitIns || 0);
    if (totalChips.value === null) totalChips.value = sum;
    check(sum === totalChips.value, `${conn.label} chips`, `stacks + pot (less newcomers' buy-ins) = ${sum}, the game began with ${totalChips.value} (round ${g.round}, phase ${g.phase})`);
    if (g.standings) check(g.standings.reduce((a, s) => a + s.stack, 0) === g.standings.reduce((a, s) => a + s.brought, 0), `${conn.label} chips`, `standings ${JSON.stringify(g.standings)} do not sum to what was brought`);
  } else {
    const sum = g.seats.reduce((a, s) => a + s.stack + s.staked, 0);
    if (totalChips.value === null) totalChips.value = sum;
    check(sum === totalChips.value, `${conn.label} chips`, `stacks + staked = ${sum}, the table began with ${totalChips.value} (round ${g.round}, phase ${g.phase})`);
    if (g.standings) check(g.standings.reduce((a, s) => a + s.stack, 0) === g.standings.reduce((a, s) => a + s.brought, 0), `${conn.label} chips`, `standings ${JSON.stringify(g.standings)} do not sum to what was brought`);
  }
}

const isOver = (v) => v && v.type === "view" && v.table.state === "finished";

// ---------------------------------------------------------------- scenarios

/** PROTOCOL.md §2, §3, §6.1, §7: frames and messages a broken client sends. */
async function protocolErrors(port) {
  const expectFatal = async (label, bytes, code, { hello = true, idNil = false, message = null } = {}) => {
    const c = hello ? await greet(port, label) : await new Conn(label, port).open();
    c.fatal = true;
    const since = c.mark();
    c.sendRaw(bytes);
    try {
      const err = await c.waitFor((m) => m.type === "error", { since, what: `error ${code}` });
      check(err.code === code, label, `expected ${code}, got ${err.code}: ${err.message}`);
      if (idNil) check(err.id === null, label, `${code} must carry id nil, got ${err.id}`);
      if (message !== null) check(err.message === message, label, `message ${JSON.stringify(err.message)}, the spec says ${JSON.stringify(message)}`);
      const bye = await c.waitFor((m) => m.type === "bye", { since, what: "bye" });
      check(bye.reason === "protocol_error", label, `bye reason ${bye.reason} after ${code}`);
      await c.waitFor(() => false, { since, timeout: 5000, what: "the server to close" }).catch((e) => check(c.closed, label, e.message));
    } catch (e) { problem(label, e.message); }
    c.close();
  };
  const msg = (m) => frame(encode(m));
  // The 19 bytes of §2's example, split across writes, and two frames in one write.
  {
    const c = await greet(port, "Framer");
    const example = Buffer.from("0000000f82a474797065a470696e67a2696401", "hex");
    check(example.equals(msg({ type: "ping", id: 1 })), "encoder", "§2's example bytes differ from my encoder's");
    c.replies.delete(1);  // the hello was id 1 too: the server only echoes ids
    const since = c.mark();
    for (const b of example) { c.sendRaw(Buffer.from([b])); }
    c.sentIds.set(7, "ping"); c.sentIds.set(8, "ping");
    c.sendRaw(Buffer.concat([msg({ type: "ping", id: 7 }), msg({ type: "ping", id: 8 })]));
    const oks = [];
    for (const id of [1, 7, 8]) oks.push(await c.waitFor((m) => m.type === "ok" && m.id === id, { since, what: `ok ${id}` }).catch((e) => problem("Framer", e.message)));
    check(oks.every((o) => o && JSON.stringify(o.result) === "{}"), "Framer", `ping results ${JSON.stringify(oks)}`);
    // Replies come in the order of the requests (§4).
    const order = c.inbox.slice(since).filter((m) => m.type === "ok").map((m) => m.id);
    check(JSON.stringify(order) === "[1,7,8]", "Framer", `replies out of order: ${order}`);
    c.close();
  }
  await expectFatal("Oversize", Buffer.from([0, 1, 0, 1]), "frame_too_large", { idNil: true });
  await expectFatal("ZeroFrame", Buffer.from([0, 0, 0, 0]), "bad_frame", { idNil: true });
  await expectFatal("BinBody", frame(Buffer.concat([Buffer.from([0x82, 0xa4]), Buffer.from("type"), Buffer.from([0xc4, 4]), Buffer.from("ping"), Buffer.from([0xa2]), Buffer.from("id"), Buffer.from([5])])), "bad_frame", { idNil: true });
  await expectFatal("Trailing", frame(Buffer.concat([encode({ type: "ping", id: 3 }), Buffer.from([0xc0])])), "bad_frame", { idNil: true });
  await expectFatal("NotAMap", frame(encode([1, 2])), "bad_frame", { idNil: true });
  await expectFatal("NaN", frame(encode({ type: "chat", id: 3, text: new Raw([0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0]) })), "bad_frame", { idNil: true });
  await expectFatal("BoolId", msg({ type: "ping", id: true }), "bad_message", { idNil: true });
  await expectFatal("BoolField", msg({ type: "history", id: 4, limit: true }), "bad_message");
  await expectFatal("StrForInt", msg({ type: "join", id: 4, table_id: 17, seat: null, private_code: null }), "bad_message");
  await expectFatal("ExtraField", msg({ type: "ping", id: 4, extra: 1 }), "bad_message");
  await expectFatal("UnknownType", msg({ type: "teleport", id: 4 }), "unknown_type");
  await expectFatal("ClientWelcome", msg({ type: "welcome", id: 4 }), "unknown_type");
  await expectFatal("LongChat", msg({ type: "chat", id: 4, text: "x".repeat(1001) }), "too_long");
  await expectFatal("StrictSettings", msg({ type: "create_table", id: 4, name: "x", settings: { colour: "red" }, private_code: null }), "bad_message");
  await expectFatal("WideAction", msg({ type: "act", id: 4, action: Object.fromEntries([["kind", "cut"], ...[...Array(16).keys()].map((i) => [`k${i}`, i])]) }), "too_long");
  await expectFatal("NoKind", msg({ type: "act", id: 4, action: { position: 3 } }), "bad_message");
  await expectFatal("UpperSeed", msg({ type: "client_seed", id: 4, seed: "ABCD" }), "bad_message");
  await expectFatal("SeatRange", msg({ type: "join", id: 4, table_id: "t1", seat: 8, private_code: null }), "bad_message");
  await expectFatal("BadTableId", msg({ type: "join", id: 4, table_id: "t 1", seat: null, private_code: null }), "bad_message");
  await expectFatal("LongName", msg({ type: "hello", id: 1, version: 2, name: "n".repeat(65), token: null, client: null }), "too_long", { hello: false });
  await expectFatal("NoHello", msg({ type: "list_tables", id: 1 }), "hello_required", { hello: false });
  await expectFatal("TwoHellos", msg({ type: "hello", id: 9, version: 2, name: "Again", token: null, client: null }), "already_greeted");
  await expectFatal("OldVersion", msg({ type: "hello", id: 1, version: 1, name: "Oldie", token: null, client: null }), "version_mismatch",
    { hello: false, message: "server speaks protocol 2, client sent 1" });
  await expectFatal("Deep", msg({ type: "act", id: 4, action: { kind: "cut", position: JSON.parse("[".repeat(15) + "]".repeat(15)) } }), "bad_frame");
  // Hello refusals: bye with the error's own code.
  for (const [name, token, code] of [["Server", null, "bad_name"], ["Robo (bot)", null, "bad_name"], ["   ", null, "bad_name"], ["x".repeat(25), null, "bad_name"], ["Tok", "nosuch_token", "bad_token"]]) {
    const c = await new Conn(`refused ${JSON.stringify(name)}`, port).open();
    c.fatal = true;
    const r = await c.request("hello", { version: 2, name, token, client: null });
    check(r.type === "error" && r.code === code, c.label, `expected ${code}, got ${JSON.stringify(r)}`);
    const bye = await c.waitFor((m) => m.type === "bye", { what: "bye" }).catch((e) => problem(c.label, e.message));
    if (bye) check(bye.reason === code, c.label, `bye reason ${bye.reason}, expected ${code}`);
    c.close();
  }
  // §10: bursts of up to 40; every request still gets exactly one reply, in order (§4).
  {
    const c = await greet(port, "Flooder");
    const first = c.nextId;
    const burst = [];
    for (let i = 0; i < 50; i++) { const id = c.nextId++; c.sentIds.set(id, "ping"); burst.push(frame(encode({ type: "ping", id }))); }
    const since = c.mark();
    c.sendRaw(Buffer.concat(burst));
    await c.waitFor((m) => m.id === first + 49, { since, what: "the 50th reply" }).catch((e) => problem("Flooder", e.message));
    const replies = c.inbox.slice(since).filter((m) => m.type === "ok" || m.type === "error");
    check(JSON.stringify(replies.map((m) => m.id)) === JSON.stringify([...Array(50).keys()].map((i) => first + i)), "Flooder", "replies not one per request in order");
    const limited = replies.filter((m) => m.type === "error");
    check(limited.every((m) => m.code === "rate_limited"), "Flooder", `errors ${JSON.stringify(limited.slice(0, 2))}`);
    const oks = replies.length - limited.length;
    check(oks >= 39 && oks <= 45, "Flooder", `${oks} of 50 pipelined pings answered ok (a burst of 40 is allowed, §10, the hello counting as one)`);
    c.checkAllReplied(); c.close();
  }
  // Names in use (§8.1, case-insensitive).
  {
    const a = await greet(port, "Dupe");
    const b = await new Conn("Dupe2", port).open(); b.fatal = true;
    await b.request("hello", { version: 2, name: "dUPE", token: null, client: null }, { expect: "bad_name" });
    a.close(); b.close();
  }
}

/** §10's limits on a server of its own: connections per address, new players per address, wrong private codes. */
async function limits(command) {
  const server = await startServer(command, { extraArgs: ["--max-per-address", "4", "--new-players-per-hour", "3"] });
  try {
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await greet(server.port, `New${uniq()}`));
    // A fifth connection from one address: error (id nil) and bye at once, before any hello.
    const fourth = await new Conn("Fourth", server.port).open();
    const extra = await new Conn("Extra", server.port).open();
    const err = await extra.waitFor((m) => m.type === "error", { what: "too_many_connections" }).catch((e) => problem("limits", e.message));
    check(err?.code === "too_many_connections" && err.id === null, "limits", `a fifth connection got ${JSON.stringify(err)}`);
    const bye2 = await extra.waitFor((m) => m.type === "bye", { what: "bye" }).catch((e) => problem("limits", e.message));
    check(bye2?.reason === "too_many_connections", "limits", `its bye ${JSON.stringify(bye2)}`);
    extra.close();
    // A fourth new player from the address: refused; with a token it is not new.
    fourth.fatal = true;
    await fourth.request("hello", { version: 2, name: `New${uniq()}`, token: null, client: null }, { expect: "rate_limited" });
    const bye = await fourth.waitFor((m) => m.type === "bye", { what: "bye" }).catch((e) => problem("limits", e.message));
    check(bye?.reason === "rate_limited", "limits", `a fourth new player's bye ${JSON.stringify(bye)}`);
    await fourth.waitFor(() => false, { timeout: 5000, what: "the server to close" }).catch(() => {});  // closed: its slot is free
    first[2].close();
    first[2] = await greet(server.port, "ignored", first[2].token);
    // Wrong private codes: five, then a back-off (not even the right code is checked).
    const [host, guesser] = first;
    await host.request("create_table", { name: "Secret", settings: {}, private_code: "opensesame" }, { expect: "ok" });
    const tableId = host.inbox.findLast((m) => m.type === "ok" && m.result?.table_id).result.table_id;
    await guesser.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "wrong_code" });  // missing: not counted
    for (let i = 0; i < 5; i++) await guesser.request("join", { table_id: tableId, seat: null, private_code: `guess${i}` }, { expect: "wrong_code" });
    const refused = await guesser.request("watch", { table_id: tableId, private_code: "opensesame" }, { expect: "too_many_attempts" });
    check(/\d/.test(refused.message || ""), "limits", `too_many_attempts should say when to try again: ${refused.message}`);
    for (const c of first) { c.checkAllReplied(); c.close(); }
  } finally {
    if (verbose) console.error(server.stderr());
    await stopServer(server);  // also checks for tracebacks in its log
  }
}

/** §6.1, §6.3: the timeouts (10 s without a hello, 15 s for a begun frame); slow, so not run by default. */
async function timeouts(port) {
  const silent = await new Conn("Silent", port).open();
  const halfway = await greet(port, "Halfway");
  halfway.sendRaw(Buffer.from([0, 0, 0, 9, 0x82]));  // a frame begun, never finished
  const [a, b] = await Promise.all([
    silent.waitFor((m) => m.type === "bye", { what: "bye hello_timeout", timeout: 20000 }),
    halfway.waitFor((m) => m.type === "bye", { what: "bye frame_timeout", timeout: 25000 }),
  ]).catch((e) => { problem("timeouts", e.message); return [null, null]; });
  check(a?.reason === "hello_timeout", "timeouts", `no hello: ${JSON.stringify(a)}`);
  check(b?.reason === "frame_timeout", "timeouts", `a frame left unfinished: ${JSON.stringify(b)}`);
  silent.close(); halfway.close();
}

/** Non-fatal errors at the lobby (§5.1, §7). */
async function lobbyErrors(port) {
  // §3.1: a field whose type allows nil may be left out, and so may one with a default.
  const terse = await new Conn("Terse", port).open();
  await terse.request("hello", { version: 2, name: "Terse" }, { expect: "welcome" });
  await terse.request("create_table", { name: "terse" }, { expect: "ok" });
  await terse.request("leave", {}, { expect: "ok" });
  await terse.request("history", {}, { expect: "ok" });
  await terse.request("add_bot", {}, { expect: "not_at_table" });
  terse.checkAllReplied(); terse.close();
  const c = await greet(port, "Lobbyist");
  const lt = await c.request("list_tables");
  for (const g of lt.result.games) keysCheck(g, ["name", "title", "min_seats", "max_seats", "bot_levels", "default_bot_level", "rules"], "list_tables game entry");
  for (const g of lt.result.games) for (const f of g.rules) keysCheck(f, ["name", "label", "default", "minimum", "maximum", "choices", "hint"], `list_tables ${g.name} rule field`);
  for (const t of lt.result.tables) checkSummary(t, "list_tables");
  check(lt.result.balance === 10000, "list_tables", `a new player's balance is ${lt.result.balance}, README says 10000`);
  const dab = lt.result.games.find((g) => g.name === "down-and-back"), crib = lt.result.games.find((g) => g.name === "cribbage");
  check(dab && dab.min_seats === 2 && dab.max_seats === 5 && dab.title === "Down and Back", "games", `down-and-back entry ${JSON.stringify(dab)}`);
  check(crib && crib.min_seats === 2 && crib.max_seats === 4 && crib.title === "Cribbage", "games", `cribbage entry ${JSON.stringify(crib)}`);
  check(JSON.stringify(dab?.bot_levels) === '["easy","normal","strong"]' && dab?.default_bot_level === "normal", "games", "down-and-back bot levels");
  check(JSON.stringify(crib?.bot_levels) === '["normal","strong"]' && crib?.default_bot_level === "strong", "games", "cribbage bot levels");
  const defaults = (g) => Object.fromEntries(g.rules.map((f) => [f.name, f.default]));
  check(JSON.stringify(defaults(dab)) === JSON.stringify({ ante: 10, stack: 1000, turns: 6, early_call: false, no_take_back: false }), "games", `down-and-back rule defaults ${JSON.stringify(defaults(dab))}`);
  check(JSON.stringify(defaults(crib)) === JSON.stringify({ target: 121, skunks: true, stake: 100, muggins: false }), "games", `cribbage rule defaults ${JSON.stringify(defaults(crib))}`);
  await c.request("join", { table_id: "nosuch", seat: null, private_code: null }, { expect: "no_such_table" });
  await c.request("watch", { table_id: "nosuch", private_code: null }, { expect: "no_such_table" });
  await c.request("leave", {}, { expect: "not_at_table" });
  await c.request("start", {}, { expect: "not_at_table" });
  await c.request("act", { action: { kind: "take_stock" } }, { expect: "not_seated" });
  await c.request("chat", { text: "hello?" }, { expect: "not_at_table" });
  await c.request("sit_out", { away: true }, { expect: "not_seated" });
  await c.request("client_seed", { seed: "ab" }, { expect: "not_seated" });
  await c.request("history", {});
  await c.request("past_rounds", {});
  await c.request("past_games", {});
  await c.request("leaderboard", {});
  await c.request("leaderboard", { game: "chess" }, { expect: "no_such_game" });
  const st = await c.request("stats", {}, { expect: "ok" });
  for (const [k, v] of Object.entries(st.result || {})) check(typeof v === "number", "stats", `${k} is not a number: ${JSON.stringify(v)}`);
  const lb = await c.request("leaderboard", { by: "wins", limit: 5 }, { expect: "ok" });
  for (const e of lb.result?.players || []) keysCheck(e, ["rank", "name", "balance", "games", "wins"], "leaderboard entry");
  for (const [settings, why] of [[{ game: "chess" }, "unknown game"], [{ seats: 6 }, "seats over the game's max"], [{ seats: 1 }, "seats under min"],
    [{ rules: { ante: 0 } }, "ante 0"], [{ rules: { ante: 20, stack: 10 } }, "stack under ante"], [{ rules: { turns: 8 } }, "turns 8"],
    [{ rules: { colour: 1 } }, "unknown rule"], [{ rules: { early_call: 1 } }, "int for a bool rule"], [{ game: "cribbage", rules: { target: 100 } }, "target 100"],
    [{ game: "cribbage", seats: 5 }, "cribbage seats 5"], [{ game: "cribbage", rules: { stake: 0 } }, "stake 0"]]) {
    const r = await c.request("create_table", { name: "bad", settings, private_code: null }, { expect: "bad_settings" });
    if (r.type === "ok") await c.request("leave");
    void why;
  }
  await c.request("create_table", { name: "   ", settings: {}, private_code: null }, { expect: "bad_name" });
  const made = await c.request("create_table", { name: "  Spaced \u0007  table ", settings: {}, private_code: "sesame" }, { expect: "ok" });
  check(made.result.seat === 0, "create_table", `creator's seat ${made.result.seat}`);
  const v = await c.waitFor((m) => m.type === "view", { what: "view after create" });
  check(v.table.name === "Spaced table", "names §8.1", `cleaned table name ${JSON.stringify(v.table.name)}`);
  check(v.table.private === true && v.game === null && v.table.state === "waiting", "create_table", `view ${JSON.stringify(v.table)}`);
  check(JSON.stringify(v.table.settings) === JSON.stringify({ game: "down-and-back", seats: 5, rules: { ante: 10, stack: 1000, turns: 6, early_call: false, no_take_back: false } }),
    "create_table", `settings are not shown complete: ${JSON.stringify(v.table.settings)}`);
  await c.request("create_table", { name: "second", settings: {}, private_code: null }, { expect: "already_at_table" });
  await c.request("start", {}, { expect: "not_enough_players" });
  await c.request("add_bot", { level: "genius" }, { expect: "bad_level" });
  await c.request("remove_bot", { seat: 3 }, { expect: "no_such_seat" });
  await c.request("end_game", {}, { expect: "no_game" });
  await c.request("act", { action: { kind: "take_stock" } }, { expect: "no_game" });
  await c.request("chat", { text: "y".repeat(201) }, { expect: "too_long" });

  const d = await greet(port, "Joiner");
  const listed = await d.waitFor((m) => m.type === "tables" && m.tables.some((t) => t.table_id === v.table_id), { what: "the lobby's tables push" }).catch((e) => problem("tables", e.message));
  if (listed) check(listed.tables.find((t) => t.table_id === v.table_id).private === true, "tables", "a private table is not shown private");
  await c.request("chat", { text: "before you came" }, { expect: "ok" });
  await d.request("join", { table_id: v.table_id, seat: null, private_code: null }, { expect: "wrong_code" });
  await d.request("join", { table_id: v.table_id, seat: null, private_code: "wrong" }, { expect: "wrong_code" });
  await d.request("join", { table_id: v.table_id, seat: 0, private_code: "sesame" }, { expect: "seat_taken" });
  await d.request("join", { table_id: v.table_id, seat: 7, private_code: "sesame" }, { expect: "no_such_seat" });
  const sinceJoin = d.mark();
  await d.request("join", { table_id: v.table_id, seat: 2, private_code: "sesame" }, { expect: "ok" });
  const said = await d.waitFor((m) => m.type === "chat_message", { since: sinceJoin, what: "the table's recent chat" }).catch((e) => problem("chat", e.message));
  if (said) {
    check(said.text === "before you came" && said.seat === 0 && said.name === "Lobbyist", "chat", `recent chat ${JSON.stringify(said)}`);
    const firstView = d.inbox.slice(sinceJoin).findIndex((m) => m.type === "view"), firstChat = d.inbox.slice(sinceJoin).indexOf(said);
    check(firstView >= 0 && firstView < firstChat, "chat", "the recent chat came before the first view (§5.2: right after it)");
  }
  await d.request("join", { table_id: v.table_id, seat: null, private_code: "sesame" }, { expect: "already_at_table" });
  await d.request("start", {}, { expect: "not_host" });
  await d.request("add_bot", {}, { expect: "not_host" });
  await d.request("leave", {}, { expect: "ok" });
  await d.request("watch", { table_id: v.table_id, private_code: "sesame" }, { expect: "ok" });
  const sv = await d.waitFor((m) => m.type === "view" && m.table.seat === null, { what: "spectator view" });
  check(sv.table.spectators === 1, "watch", `spectators ${sv.table.spectators}`);
  await d.request("watch", { table_id: v.table_id, private_code: "sesame" }, { expect: "already_at_table" });
  await d.request("act", { action: { kind: "take_stock" } }, { expect: "not_seated" });
  // §10: chat bursts of up to 5 (lines said above took some), then rate_limited.
  const chats = [];
  for (let i = 0; i < 7; i++) chats.push(await c.request("chat", { text: `line ${i}` }));
  const taken = chats.findIndex((r) => r.type !== "ok");
  check(taken >= 1 && taken <= 5 && chats.slice(taken).every((r) => r.code === "rate_limited"), "chat", `a burst of chat: ${chats.map((r) => r.code || r.type)}`);
  await c.request("leave", {}, { expect: "ok" });
  c.checkAllReplied(); d.checkAllReplied();
  c.close(); d.close();
  // §8.1: a returning player whose name was taken meanwhile is told apart by a number.
  const first = await greet(port, "Twin");
  first.close();
  await first.waitFor(() => false, { timeout: 300, what: "" }).catch(() => {});
  let other = null;
  for (let tries = 0; tries < 20 && !other; tries++) {  // the first connection's end reaches the server soon
    const o = await new Conn("twin", port).open();
    const r = await o.request("hello", { version: 2, name: "twin", token: null, client: null });
    if (r.type === "welcome") other = o; else { o.fatal = true; o.close(); await o.waitFor(() => false, { timeout: 100 }).catch(() => {}); }
  }
  if (check(other, "names", "the name of a player gone offline stayed in use")) {
    const back = await greet(port, "Twin", first.token);
    await back.request("create_table", { name: "whose", settings: {}, private_code: null }, { expect: "ok" });
    const v2 = await back.waitFor((m) => m.type === "view", { what: "the view" });
    check(v2.table.members[0].name === "Twin 2", "names", `the returning player is called ${JSON.stringify(v2.table.members[0].name)}, not "Twin 2"`);
    back.close(); other.close();
  }
}

/** A player per name, each one's balance before the game, every seat played at random, the host's events
 *  checked against the rules. */
async function players(port, game, names) {
  const conns = [];
  for (const n of names) conns.push(await greet(port, n));
  const balances = [];
  for (const c of conns) balances.push((await c.request("list_tables")).result.balance);
  const totalChips = { value: null };
  for (const c of conns) { autoplay(c, game, { totalChips }); c.sendSeeds = true; }
  conns[0].rules = new RulesWatcher(game, conns[0].label);
  return { conns, balances, totalChips, host: conns[0], others: conns.slice(1) };
}

/** README "Your chips stay yours": the balance after a game is the one before, less the buy-in, plus the final stack. */
async function checkBalance(c, before, standings) {
  const lt = await c.request("list_tables");
  const st = standings.find((s) => s.seat === c.seat);
  check(lt.result.balance === before - st.brought + st.stack, `${c.label} balance`, `${before} - ${st.brought} + ${st.stack} != ${lt.result.balance}`);
}

/** A Down and Back game with `humans` human seats and `bots` bots, played to its natural end. */
async function downAndBack(port, { humans = 3, bots = 1, rules = { ante: 10, stack: 30 }, spectator = true, reconnect = true }) {
  const names = ["Ann", "Bob", "Cyd", "Dee", "Eve"].slice(0, humans).map((n) => `${n}${uniq()}`);
  const { conns, balances, totalChips, host, others } = await players(port, "down-and-back", names);
  const made = await host.request("create_table", { name: "Stranger's table", settings: { game: "down-and-back", seats: humans + bots, rules }, private_code: null }, { expect: "ok" });
  const tableId = made.result.table_id;
  for (const c of others) {
    const j = await c.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "ok" });
    c.expectedSeat = j.result.seat;
  }
  for (let i = 0; i < bots; i++) await host.request("add_bot", { level: choice(["easy", "normal", "strong", null]) }, { expect: "ok" });
  let watcher = null;
  if (spectator) {
    watcher = await greet(port, `Spec${uniq()}`);
    autoplay(watcher, "down-and-back", { totalChips });
    await watcher.request("watch", { table_id: tableId, private_code: null }, { expect: "ok" });
  }
  // Deliberate mistakes once the game runs: wrong turn, a card not held, a malformed action, a table action.
  // They are made on the view where the acting seat must draw, before it acts (it is paused meanwhile).
  let mistakes = null, mistakesMade;
  const mistakesDone = new Promise((resolve) => { mistakesMade = resolve; });
  const makeMistakes = async (acting, waiting) => {
    log("mistakes by", acting.label, "and", waiting.label);
    await waiting.request("act", { action: { kind: "take_stock" } }, { expect: "not_your_turn" });
    const notHeld = SORTED_PACK.find((card) => !acting.view.game.hand.includes(card));
    await acting.request("act", { action: { kind: "discard", card: notHeld } }, { expect: "illegal_action" });
    await acting.request("act", { action: { kind: "discard", card: "1S" } }, { expect: "bad_action" });
    await acting.request("act", { action: { kind: "take_stock", extra: 1 } }, { expect: "bad_action" });
    await acting.request("act", { action: { kind: "start_round" } }, { expect: "bad_action" });
    await acting.request("act", { action: { kind: "cut", position: "x" } }, { expect: "bad_action" });
    await acting.request("act", { action: { kind: "cut", position: 20 } }, { expect: "illegal_action" });
    await acting.request("client_seed", { seed: "abc" }, { expect: "bad_action" });
    await acting.request("client_seed", { seed: "ab" }, { expect: "illegal_action" });
    await waiting.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "already_at_table" });
    await waiting.request("add_bot", {}, { expect: host === waiting ? "game_running" : "not_host" });
    await host.request("start", {}, { expect: "game_running" });
    await host.request("remove_bot", { seat: humans }, { expect: bots ? "game_running" : "game_running" });
    const since = acting.mark();
    await waiting.request("chat", { text: "  good\u0000 luck  " }, { expect: "ok" });
    const line = await acting.waitFor((m) => m.type === "chat_message" && m.text === "good luck", { since, what: "the chat line" }).catch((e) => problem("chat", e.message));
    if (line) check(line.seat === waiting.seat && line.table_id === tableId && Number.isInteger(line.ts) && line.name === waiting.label, "chat", JSON.stringify(line));
    acting.paused = false;
    log("mistakes done");
    maybeAct(acting, "down-and-back", acting.view);
  };
  for (const c of conns) {
    const inner = c.onMessage;
    c.onMessage = (m) => {
      const g = m.type === "view" && m.game;
      if (!mistakes && g && g.phase === "play" && g.step === "draw" && g.turn === c.seat && g.round === 1) {
        const waiting = conns.find((x) => x !== c && !g.to_act.includes(x.seat));
        if (waiting) { c.paused = true; mistakes = makeMistakes(c, waiting).catch((e) => problem("mistakes", e.stack)).finally(mistakesMade); }
      }
      inner(m);
    };
  }
  await host.request("start", {}, { expect: "ok" });
  // Reconnect a non-host mid-game: same seat, same hand (§9).
  if (reconnect) {
    const b = others[0];
    await mistakesDone;
    await b.waitFor((m) => m.type === "view" && m.game && m.game.phase === "play" && m.game.turn !== b.seat, { what: "the play", timeout: 20000 });
    b.paused = true;
    log("reconnecting", b.label, "acting", b.acting);
    while (b.acting) await b.actPromise;
    const hand = b.view.game.hand, seat = b.seat, lastDecision = b.lastDecision;
    const fresh = await greet(port, "ignored name", b.token);
    const bye = await b.waitFor((m) => m.type === "bye", { what: "bye replaced" }).catch((e) => problem("reconnect", e.message));
    check(bye && bye.reason === "replaced", "reconnect", `old connection's bye ${JSON.stringify(bye)}`);
    check(fresh.welcome.player_id === b.playerId && fresh.welcome.table_id === tableId && fresh.welcome.seat === seat, "reconnect",
      `welcome ${JSON.stringify(fresh.welcome)} (was seat ${seat} at ${tableId})`);
    const v = await fresh.waitFor((m) => m.type === "view", { what: "view after resume" });
    check(v.table.seat === seat, "reconnect", `view seat ${v.table.seat}`);
    if (v.game.round === b.view.game.round && v.game.phase !== "waiting") {
      check(JSON.stringify([...v.game.hand].sort()) === JSON.stringify([...hand].sort()), "reconnect", `hand after resume ${v.game.hand}, before ${hand}`);
      if (JSON.stringify(v.game.hand) !== JSON.stringify(hand)) note("reconnect", `the hand's order changed on resume: ${v.game.hand} was ${hand}`);
    }
    b.checkAllReplied();
    // The resumed view's log against the events both connections were pushed (diagnostic).
    const seen = [...b.inbox, ...fresh.inbox].filter((m) => m.type === "event").flatMap((m) => m.events).map((e) => JSON.stringify(e));
    const lost = v.game.log.filter((e) => !seen.includes(JSON.stringify(e)));
    if (b.fair.current) b.fair.current.resumed = true;  // FAIRNESS.md §1: a round seen in part is not checked whole
    if (lost.length) note("reconnect", `events in the resumed view's log that neither connection was pushed: ${JSON.stringify(lost)}; fresh inbox starts ${fresh.inbox.slice(0, 3).map((m) => m.type)}`);
    fresh.label = b.label; fresh.fair = b.fair; fresh.fair.conn = fresh; fresh.sendSeeds = true;
    autoplay(fresh, "down-and-back", { totalChips });
    for (const m of fresh.inbox) if (m.type === "event") for (const e of m.events) fresh.fair.event(e);  // pushed before autoplay
    fresh.lastDecision = lastDecision; fresh.seat = v.table.seat;
    fresh.view = [...fresh.inbox].reverse().find((m) => m.type === "view");  // views may have come since v
    conns[conns.indexOf(b)] = fresh; others[0] = fresh;
    log("reconnected", fresh.label, JSON.stringify(v.decision), "latest", JSON.stringify(fresh.view.decision));
    maybeAct(fresh, "down-and-back", fresh.view);
  }
  const finals = await Promise.all(conns.map((c) => c.waitFor(isOver, { what: "game over", timeout: 60000 })));
  if (!mistakes) note("down-and-back", "the game ended before the deliberate mistakes could be made");
  else await mistakes;
  const final = finals[0].game;
  check(final.phase === "over" && final.standings, "down-and-back", `final view phase ${final.phase}`);
  check(finals[0].table.chip_history !== null, "down-and-back", "chip_history is nil at game over");
  // Each human's balance: before - brought + final stack (README "Your chips stay yours").
  for (const [i, c] of conns.entries()) {
    await checkBalance(c, balances[i], final.standings);
    const h = await c.request("history", { limit: 10 }, { expect: "ok" });
    if (h.type !== "ok") continue;
    check(h.result.rounds.length === final.round, `${c.label} history`, `${h.result.rounds.length} rounds, the game had ${final.round}`);
    for (const r of h.result.rounds) keysCheck(r, ["game_name", "table_id", "finished_at", "round", "dealer", "pot", "players", "stacks", "down_winner", "back_winner", "tie_breaks", "winner", "carried", "abandoned"], `${c.label} down-and-back round record`);
    check(c.fair.verified === final.round, `${c.label} fair`, `verified ${c.fair.verified} of ${final.round} rounds`);
  }
  const pr = await conns[0].request("past_rounds", { table_id: tableId }, { expect: "ok" });
  check(pr.result.rounds.length === final.round, "past_rounds", `${pr.result.rounds.length} rounds for ${final.round}`);
  for (const r of pr.result.rounds) keysCheck(r, ["table_id", "table_name", "game_name", "round", "seat", "chips", "result", "finished_at"], "past round");
  if (pr.result.rounds.length) {
    const rp = await conns[0].request("replay", { table_id: tableId, round: pr.result.rounds[0].round });
    for (const s of rp.result?.steps || []) { keysCheck(s, ["seat", "events", "view"], "replay step"); checkHidden(Object.assign(Object.create(conns[0]), { seat: rp.result.seat, game: "down-and-back", label: "replay" }), { type: "event", events: s.events }); }
    const stranger = watcher || (await greet(port, `Nosy${uniq()}`));
    if (watcher) await watcher.request("leave", {}, { expect: "ok" });
    await stranger.request("replay", { table_id: tableId, round: 1 }, { expect: "no_such_round" });
  }
  const pg = await conns[0].request("past_games", {}, { expect: "ok" });
  check(pg.result.games.some((g) => g.table_id === tableId), "past_games", "the game just played is missing");
  for (const c of [...conns, watcher].filter(Boolean)) { c.checkAllReplied(); c.close(); }
  return { rounds: final.round, verified: conns.map((c) => c.fair.verified), seeds: conns.map((c) => c.seeds) };
}

/** A Cribbage table with `humans` human seats (and bots to fill `seats`), played until the table is over. */
async function cribbage(port, { humans = 2, seats = 2, bots = seats - humans, rules = { target: 61, stake: 10000 }, endAfterGame = false }) {
  const names = ["Cat", "Dan", "Ed", "Flo"].slice(0, humans).map((n) => `${n}${uniq()}`);
  const { conns, balances, totalChips, host, others } = await players(port, "cribbage", names);
  const made = await host.request("create_table", { name: "Crib", settings: { game: "cribbage", seats, rules }, private_code: null }, { expect: "ok" });
  const tableId = made.result.table_id;
  for (const c of others) await c.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "ok" });
  const watcher = await greet(port, `Spy${uniq()}`);
  autoplay(watcher, "cribbage", { totalChips });
  await watcher.request("watch", { table_id: tableId, private_code: null }, { expect: "ok" });
  for (let i = 0; i < bots; i++) await host.request("add_bot", { level: choice(["normal", "strong", null]) }, { expect: "ok" });
  await host.request("start", {}, { expect: "ok" });
  const late = await greet(port, `Late${uniq()}`);
  await late.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: humans + bots === seats ? "table_full" : "game_running" });
  late.close();
  if (endAfterGame) {
    await host.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "game_won"), { what: "game_won", timeout: 60000 });
    await host.request("end_game", {}, { expect: "ok" });
  }
  const finals = await Promise.all(conns.map((c) => c.waitFor(isOver, { what: "table over", timeout: 90000 })));
  const final = finals[0].game;
  if (verbose) fs.writeFileSync(path.join(os.tmpdir(), `stranger-${conns[0].label}.json`), JSON.stringify(conns[0].inbox.map((m) => m.type === "view" ? { type: "view", decision: m.decision, phase: m.game?.phase, state: m.table.state } : m)));
  check(final.phase === "over" && final.standings, "cribbage", `final phase ${final.phase}`);
  const won = conns[0].inbox.filter((m) => m.type === "event").flatMap((m) => m.events).filter((e) => e.kind === "game_won");
  for (const w of won) {
    const paid = w.losses.reduce((a, l) => a + l.chips, 0), got = w.gains.reduce((a, g) => a + g.chips, 0);
    check(paid === got, "cribbage chips", `game_won: losers paid ${paid}, winners got ${got}`);
    for (const l of w.losses) check([1, 2, 3].includes(l.multiplier), "cribbage", `multiplier ${l.multiplier}`);
  }
  for (const [i, c] of conns.entries()) {
    await checkBalance(c, balances[i], final.standings);
    const h = await c.request("history", { limit: 100 }, { expect: "ok" });
    if (h.type !== "ok") continue;
    for (const r of h.result.rounds) keysCheck(r, ["game_name", "table_id", "finished_at", "round", "game", "deal", "dealer", "players", "stacks", "pot", "scores", "show", "won", "abandoned"], `${c.label} cribbage round record`);
    check(c.fair.verified === final.round, `${c.label} fair`, `verified ${c.fair.verified} of ${final.round} deals`);
    c.checkAllReplied(); c.close();
  }
  await watcher.waitFor(isOver, { what: "the spectator's last view" });
  check(watcher.fair.verified === final.round, "spectator fair", `the spectator verified ${watcher.fair.verified} of ${final.round} deals`);
  watcher.checkAllReplied(); watcher.close();
  return { deals: final.round, games: won.length, counted: host.rules.counted, verifiedDeals: conns.map((c) => c.fair.verifiedDeals || 0) };
}

/** PROTOCOL.md §5.1 sit_out and leave: the server plays an away seat at once, deals it out, deals it back in. */
async function sitOut(port) {
  const [ann, bob] = [await greet(port, `Ann${uniq()}`), await greet(port, `Bob${uniq()}`)];
  const totalChips = { value: null };
  for (const c of [ann, bob]) autoplay(c, "down-and-back", { totalChips });
  const made = await ann.request("create_table", { name: "Away", settings: { seats: 3, rules: { ante: 10, stack: 1000 } }, private_code: null }, { expect: "ok" });
  const tableId = made.result.table_id;
  await bob.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "ok" });
  await ann.request("add_bot", { level: "easy" }, { expect: "ok" });
  bob.paused = true;
  let since = bob.mark();
  await ann.request("start", {}, { expect: "ok" });
  await bob.request("sit_out", { away: true }, { expect: "ok" });
  await bob.request("sit_out", { away: true }, { expect: "ok" });  // asking for what you are changes nothing
  await bob.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "away" && e.seat === bob.seat), { since, what: "the away event" });
  const away = await bob.waitFor((m) => m.type === "view" && m.table.members.find((x) => x.seat === bob.seat)?.away, { since, what: "a view with bob away" });
  check(away.game.players.find((p) => p.seat === bob.seat).away, "sit_out", "the game's player map does not say away");
  // Round 2 deals bob out: no ante, no hand, no legal actions.
  since = bob.mark();
  const r2 = await bob.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "round" && e.round === 2), { since, what: "round 2", timeout: 30000 });
  const round2 = r2.events.find((e) => e.kind === "round");
  check(!round2.seats.includes(bob.seat), "sit_out", `an away seat is dealt into round 2: ${round2.seats}`);
  const v2 = await bob.waitFor((m) => m.type === "view" && m.game?.round === 2 && m.game.phase === "play", { since, what: "round 2's play" });
  check(v2.game.hand.length === 0 && v2.game.legal.length === 0, "sit_out", `a seat not dealt in has hand ${v2.game.hand} and legal ${JSON.stringify(v2.game.legal)}`);
  check(!v2.game.players.find((p) => p.seat === bob.seat).in_round, "sit_out", "in_round is true for a seat not dealt in");
  await bob.request("client_seed", { seed: "ab" }, { expect: "illegal_action" });
  await bob.request("act", { action: { kind: "take_stock" } }, { expect: "not_your_turn" });
  since = bob.mark();
  await bob.request("sit_out", { away: false }, { expect: "ok" });
  await bob.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "back" && e.seat === bob.seat), { since, what: "the back event" });
  bob.paused = false;
  const r3 = await bob.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "round" && e.round === 3), { since, what: "round 3", timeout: 30000 });
  check(r3.events.find((e) => e.kind === "round").seats.includes(bob.seat), "sit_out", "a seat back from away is not dealt into the next round");
  // The host leaves the running game: the seat is held and played, the host role moves to bob; ann comes back.
  since = bob.mark();
  ann.paused = true;
  while (ann.acting) await ann.actPromise;
  if (ann.fair.current) ann.fair.current.resumed = true;  // away from the table, ann misses this round's events
  await ann.request("leave", {}, { expect: "ok" });
  const left = await bob.waitFor((m) => m.type === "view" && !m.table.members.find((x) => x.seat === 0)?.connected, { since, what: "ann's seat held" });
  const held = left.table.members.find((x) => x.seat === 0);
  check(held && held.away && !held.connected, "leave", `a seat left in a running game: ${JSON.stringify(held)}`);
  check(left.table.host_seat === bob.seat, "leave", `the host role went to ${left.table.host_seat}, not to the human still seated (${bob.seat})`);
  const lt = await ann.request("list_tables", {}, { expect: "ok" });
  check(lt.result.tables.some((t) => t.table_id === tableId && t.players.find((p) => p.seat === 0 && !p.connected)), "leave", "the lobby does not show ann's held seat as not connected");
  const rejoin = await ann.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "ok" });
  check(rejoin.result.seat === 0, "leave", `came back to seat ${rejoin.result.seat}, not 0`);
  ann.paused = false;
  await bob.request("end_game", {}, { expect: "ok" });
  const over = await ann.waitFor(isOver, { what: "game over" });
  const ev = ann.inbox.filter((m) => m.type === "event").flatMap((m) => m.events).find((e) => e.kind === "game_over");
  check(ev && Array.isArray(ev.refunds), "end_game", `game_over ${JSON.stringify(ev)}`);
  await ann.request("end_game", {}, { expect: "not_host" });
  await bob.request("end_game", {}, { expect: "no_game" });
  for (const c of [ann, bob]) { c.checkAllReplied(); c.close(); }
  return { rounds: over.game.round };
}

/** PROTOCOL.md §5.1 join, "Joining a running game": a newcomer buys in, is told as sit_in, is dealt from the next round. */
async function sitIn(port) {
  const [ann, cyd] = [await greet(port, `Ann${uniq()}`), await greet(port, `Cyd${uniq()}`)];
  const totalChips = { value: null };
  autoplay(ann, "down-and-back", { totalChips });
  const made = await ann.request("create_table", { name: "Open", settings: { seats: 3, rules: { ante: 10, stack: 40 } }, private_code: null }, { expect: "ok" });
  const tableId = made.result.table_id;
  await ann.request("add_bot", {}, { expect: "ok" });
  await ann.request("start", {}, { expect: "ok" });
  await ann.waitFor((m) => m.type === "view" && m.game?.phase === "play", { what: "the play" });
  const since = ann.mark();
  const balance = (await cyd.request("list_tables", {}, { expect: "ok" })).result.balance;
  const joined = await cyd.request("join", { table_id: tableId, seat: null, private_code: null }, { expect: "ok" });
  check(joined.result.seat === 2, "sit_in", `the newcomer got seat ${joined.result.seat}`);
  const told = await ann.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "sit_in"), { since, what: "the sit_in event" }).catch((e) => problem("sit_in", e.message));
  const e = told?.events.find((x) => x.kind === "sit_in");
  if (e) check(e.seat === 2 && e.name === cyd.label && e.chips === 40, "sit_in", `sit_in ${JSON.stringify(e)}`);
  const v = await cyd.waitFor((m) => m.type === "view", { what: "the newcomer's view" });
  if (v.game.round === 1 && v.game.phase !== "waiting") check(v.game.hand.length === 0 && v.game.legal.length === 0, "sit_in", `mid-round newcomer: hand ${v.game.hand}, legal ${JSON.stringify(v.game.legal)}`);
  autoplay(cyd, "down-and-back", { totalChips: { value: null } });  // it sees the table with its buy-in in
  maybeAct(cyd, "down-and-back", cyd.view);
  const r2 = await cyd.waitFor((m) => m.type === "event" && m.events.some((x) => x.kind === "round" && x.round === 2), { what: "round 2", timeout: 30000 }).catch(() => null);
  if (r2) check(r2.events.find((x) => x.kind === "round").seats.includes(2), "sit_in", "the newcomer is not dealt into the next round");
  const over = await cyd.waitFor(isOver, { what: "the end", timeout: 60000 });
  const st = over.game.standings.find((x) => x.seat === 2);
  const after = (await cyd.request("list_tables", {}, { expect: "ok" })).result.balance;
  check(st.brought === 40 && after === balance - 40 + st.stack, "sit_in", `balance ${balance} → ${after}, brought ${st.brought}, left with ${st.stack}`);
  const rows = over.table.chip_history;
  check(Array.isArray(rows) && rows.length >= 2 && rows.length <= 120 && Object.keys(rows[0]).every((k) => /^\d$/.test(k)), "chip_history", `${JSON.stringify(rows).slice(0, 200)}`);
  // Away from tables, history is the rounds of the tables one played at (§5.1 history); past_rounds pages with next.
  await cyd.request("leave", {}, { expect: "ok" });
  const h = await cyd.request("history", { limit: 100 }, { expect: "ok" });
  check(h.result?.rounds.length >= 1 && h.result.rounds.every((r) => r.table_id === tableId), "history", `away from tables: ${h.result?.rounds.length} rounds`);
  const page1 = await ann.request("past_rounds", { limit: 1 }, { expect: "ok" });
  if (over.game.round > 1) {
    check(page1.result.rounds.length === 1 && page1.result.next !== null, "past_rounds", `page 1 ${JSON.stringify(page1.result)}`);
    const page2 = await ann.request("past_rounds", { limit: 1, before: page1.result.next }, { expect: "ok" });
    check(page2.result.rounds.length === 1 && page2.result.rounds[0].round < page1.result.rounds[0].round, "past_rounds", `page 2 ${JSON.stringify(page2.result)} after ${JSON.stringify(page1.result)}`);
  }
  for (const c of [ann, cyd]) { c.checkAllReplied(); c.close(); }
  return { rounds: over.game.round };
}

/** PROTOCOL.md §5.1 offer_rematch / answer_rematch: same seats, same settings, a new table started at once. */
async function rematch(port) {
  const [ann, bob] = [await greet(port, `Ann${uniq()}`), await greet(port, `Bob${uniq()}`)];
  const spectator = await greet(port, `Spec${uniq()}`);
  let totalChips = { value: null };
  for (const c of [ann, bob]) autoplay(c, "down-and-back", { totalChips });
  const made = await ann.request("create_table", { name: "Again", settings: { seats: 3, rules: { ante: 10, stack: 10 } }, private_code: null }, { expect: "ok" });
  const oldId = made.result.table_id;
  await bob.request("join", { table_id: oldId, seat: null, private_code: null }, { expect: "ok" });
  await ann.request("add_bot", {}, { expect: "ok" });
  await ann.request("offer_rematch", {}, { expect: "no_game" });
  await ann.request("start", {}, { expect: "ok" });
  await spectator.request("watch", { table_id: oldId, private_code: null }, { expect: "ok" });
  await Promise.all([ann, bob].map((c) => c.waitFor(isOver, { what: "the first game's end", timeout: 30000 })));
  await bob.request("offer_rematch", {}, { expect: "not_host" });
  await bob.request("answer_rematch", { accept: true }, { expect: "no_rematch" });
  let since = bob.mark();
  await ann.request("offer_rematch", {}, { expect: "ok" });
  await ann.request("offer_rematch", {}, { expect: "ok" });  // pending already: accepted, changes nothing
  const offer = await bob.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "rematch"), { since, what: "the rematch event" });
  const ev = offer.events.find((e) => e.kind === "rematch");
  check(ev.seat === 0 && JSON.stringify([...ev.seats].sort()) === "[0,1,2]", "rematch", `rematch event ${JSON.stringify(ev)}`);
  const pending = await bob.waitFor((m) => m.type === "view" && m.table.rematch, { since, what: "table.rematch" });
  const rm = pending.table.rematch;
  keysCheck(rm, ["accepted", "waiting", "deadline_ms"], "view.table.rematch");
  check(JSON.stringify(rm.waiting) === "[1]" && rm.accepted.includes(0) && rm.accepted.includes(2) && rm.deadline_ms > 0 && rm.deadline_ms <= 60000,
    "rematch", `the host and the bot accept at once, bob is awaited: ${JSON.stringify(rm)}`);
  await spectator.request("answer_rematch", { accept: true }, { expect: "not_seated" });
  since = bob.mark();
  const sinceSpec = spectator.mark();
  totalChips = { value: null };
  for (const c of [ann, bob]) autoplay(c, "down-and-back", { totalChips });
  await bob.request("answer_rematch", { accept: true }, { expect: "ok" });
  const fresh = await bob.waitFor((m) => m.type === "view" && m.table_id !== oldId, { since, what: "the new table's view" });
  check(fresh.table.state === "playing" && fresh.table.seat === 1 && fresh.table.host_seat === 0 && fresh.table.name === "Again", "rematch", `new table ${JSON.stringify(fresh.table).slice(0, 300)}`);
  check(JSON.stringify(fresh.table.settings) === JSON.stringify(pending.table.settings), "rematch", "the new table's settings differ");
  const told = await spectator.waitFor((m) => m.type === "event" && m.events.some((e) => e.kind === "rematch_started"), { since: sinceSpec, what: "rematch_started" }).catch((e) => problem("rematch", e.message));
  if (told) check(told.events.find((e) => e.kind === "rematch_started").table_id === fresh.table_id, "rematch", "rematch_started names another table");
  const over = await Promise.all([ann, bob].map((c) => c.waitFor((m) => isOver(m) && m.table_id === fresh.table_id, { what: "the rematch's end", timeout: 30000 })));
  for (const c of [ann, bob, spectator]) { c.checkAllReplied(); c.close(); }
  return { rounds: over[0].game.round };
}

/** README "Durability": kill -9 mid-round, restart on the same data directory: same seats, same cards, play on. */
async function restart(server) {
  const conns = [await greet(server.port, `Kim${uniq()}`), await greet(server.port, `Lee${uniq()}`)];
  const totalChips = { value: null };
  for (const c of conns) autoplay(c, "down-and-back", { totalChips });
  const made = await conns[0].request("create_table", { name: "Durable", settings: { seats: 2, rules: { ante: 10, stack: 20 } }, private_code: null }, { expect: "ok" });
  await conns[1].request("join", { table_id: made.result.table_id, seat: null, private_code: null }, { expect: "ok" });
  await conns[0].request("start", {}, { expect: "ok" });
  // Let a few turns go by, then stop both players and kill the server.
  await conns[0].waitFor((m) => m.type === "view" && m.game?.phase === "play" && m.decision[2] >= 3, { what: "a few turns", timeout: 20000 });
  for (const c of conns) c.paused = true;
  for (const c of conns) while (c.acting) await c.actPromise;
  for (const c of conns) await c.request("ping");  // its reply follows the pushes of what came before (DURABILITY.md)
  const before = conns.map((c) => ({ seat: c.seat, hand: [...c.view.game.hand].sort(), stock: c.view.game.stock_count, token: c.token, label: c.label, id: c.playerId }));
  server.proc.kill("SIGKILL");
  await new Promise((resolve) => server.proc.on("exit", resolve));
  for (const c of conns) c.close();
  const again = await startServer(server.command, { dataDir: server.dataDir });
  const back = [];
  for (const b of before) {
    const c = await greet(again.port, b.label, b.token);
    check(c.welcome.resumed && c.welcome.player_id === b.id && c.welcome.seat === b.seat && c.welcome.table_id === made.result.table_id, "restart", `welcome ${JSON.stringify(c.welcome)}`);
    const v = await c.waitFor((m) => m.type === "view", { what: "the view after the restart" });
    if (v.game.phase === "play") {
      check(JSON.stringify([...v.game.hand].sort()) === JSON.stringify(b.hand), "restart", `${b.label}'s hand ${v.game.hand}, before the kill ${b.hand}`);
      check(v.game.stock_count === b.stock, "restart", `stock ${v.game.stock_count}, before ${b.stock}`);
    } else problem("restart", `the round did not survive the restart: phase ${v.game.phase}`);
    c.label = b.label;
    autoplay(c, "down-and-back", { totalChips });
    c.seat = v.table.seat; c.view = [...c.inbox].reverse().find((m) => m.type === "view");
    back.push(c);
  }
  for (const c of back) maybeAct(c, "down-and-back", c.view);
  const finals = await Promise.all(back.map((c) => c.waitFor(isOver, { what: "game over after the restart", timeout: 30000 })));
  for (const c of back) { c.checkAllReplied(); c.close(); }
  return { server: again, rounds: finals[0].game.round };
}

// ---------------------------------------------------------------- main

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  verbose = args.includes("--verbose");
  const seed = opt("--seed", String(Date.now() % 1000000));
  rngState = BigInt(seed);
  const command = args.includes("--python") ? [opt("--python"), "-m", "server"] : [opt("--server", "dab-server")];
  const short = args.includes("--short");  // one round of Down and Back: the stack is one ante
  const scenarios = {
    protocol: (port) => protocolErrors(port),
    lobby: (port) => lobbyErrors(port),
    "down-and-back": (port) => downAndBack(port, short ? { humans: 2, bots: 1, rules: { ante: 10, stack: 10 } } : { humans: 3, bots: 1 }),
    "down-and-back-variants": (port) => downAndBack(port, { humans: 2, bots: 0, rules: { ante: 5, stack: 20, turns: 7, no_take_back: true, early_call: true }, spectator: false, reconnect: false }),
    cribbage: (port) => cribbage(port, { humans: 2, seats: 3, bots: 0 }),
    "cribbage-partners": (port) => cribbage(port, { humans: 2, seats: 4, rules: { target: 61, stake: 50 }, endAfterGame: true }),
    "cribbage-muggins": (port) => cribbage(port, { humans: 3, seats: 3, rules: { target: 61, muggins: true, stake: 10 }, endAfterGame: true }),
    "sit-out": (port) => sitOut(port),
    timeouts: (port) => timeouts(port),
    limits: () => limits(command),
    rematch: (port) => rematch(port),
    "sit-in": (port) => sitIn(port),
    restart: null,  // below: it replaces the server
  };
  const only = opt("--only", Object.keys(scenarios).filter((n) => n !== "timeouts").join(",")).split(",");
  selfTestFairness();
  if (!short) selfTestHands();
  let server = await startServer(command);
  const summary = { seed: Number(seed) };
  try {
    for (const name of only) {
      if (!(name in scenarios)) throw new Error(`no scenario ${name}: ${Object.keys(scenarios)}`);
      log("scenario", name);
      if (name === "restart") { const r = await restart(server); server = r.server; summary.restart = { rounds: r.rounds }; continue; }
      summary[name] = (await scenarios[name](server.port)) ?? "done";
    }
  } catch (e) {
    problem("run", e.stack || e.message);
  } finally {
    const last = await greet(server.port, "Lingerer").catch((e) => problem("shutdown", e.message));
    const byeWait = last && last.waitFor((m) => m.type === "bye", { what: "bye at shutdown" });
    await stopServer(server);
    if (last) { const bye = await byeWait.catch((e) => problem("shutdown", e.message)); check(bye?.reason === "shutting_down", "shutdown", `bye ${JSON.stringify(bye)}`); }
  }
  console.log(JSON.stringify({ summary, findings, notes }, null, 1));
  process.exit(findings.length ? 1 : 0);
}

main();
