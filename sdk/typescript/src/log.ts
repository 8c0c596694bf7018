// The plugin's own log: one line per message on stderr, in slog's text form
// (`level=INFO msg="..." key=value`), which the host reads line by line and
// logs at the level each line names.

/** The level of a log line or of a call's log event. */
export type LogLevel = "debug" | "info" | "warning" | "error";

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 };
const word: Record<LogLevel, string> = { debug: "DEBUG", info: "INFO", warning: "WARN", error: "ERROR" };

let threshold = rank.info;
let sink: (line: string) => void = (line) => {
  process.stderr.write(line);
};

/**
 * parseLogLevel reads a level as RAMABANA_LOG_LEVEL has it (DEBUG, INFO,
 * WARN or ERROR; WARNING too; any case); undefined for anything else.
 */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  switch ((value ?? "").trim().toUpperCase()) {
    case "DEBUG":
      return "debug";
    case "INFO":
      return "info";
    case "WARN":
    case "WARNING":
      return "warning";
    case "ERROR":
      return "error";
  }
  return undefined;
}

/** setLogLevel drops the lines below level from now on (serve sets it from RAMABANA_LOG_LEVEL; info by default). */
export function setLogLevel(level: LogLevel): void {
  threshold = rank[level];
}

/** setLogSink sends the log lines (each ending in "\n") to fn instead of stderr; for tests. It returns the previous sink. */
export function setLogSink(fn: (line: string) => void): (line: string) => void {
  const old = sink;
  sink = fn;
  return old;
}

/** Attributes of a log line: each is written as key=value after the message. */
export type LogAttrs = Record<string, unknown>;

function quote(v: string): string {
  return v === "" || /[\s"=\\]|[^\x21-\x7e]/.test(v) ? JSON.stringify(v) : v;
}

function write(level: LogLevel, msg: string, attrs?: LogAttrs): void {
  if (rank[level] < threshold) return;
  let line = `level=${word[level]} msg=${quote(msg)}`;
  for (const [k, v] of Object.entries(attrs ?? {})) {
    const s = v instanceof Error ? (v.stack ?? String(v)) : typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
    line += ` ${k}=${quote(s)}`;
  }
  sink(line + "\n");
}

/**
 * log writes the plugin's own log lines to stderr, where the host logs them
 * at their level; a message never spans lines (newlines are quoted). A
 * call's events for the host's log of that call are Call.log.
 */
export const log = {
  debug: (msg: string, attrs?: LogAttrs) => write("debug", msg, attrs),
  info: (msg: string, attrs?: LogAttrs) => write("info", msg, attrs),
  warn: (msg: string, attrs?: LogAttrs) => write("warning", msg, attrs),
  error: (msg: string, attrs?: LogAttrs) => write("error", msg, attrs),
};
