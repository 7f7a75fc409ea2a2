import { parseLine, unexpectedFlags, usage, type Values } from "./args";
import { auditCommands } from "./audit";
import { benchCommand } from "./bench";
import { CtlError, type CtlFetch, connect } from "./client";
import { type Command, type Output, usageLine } from "./command";
import { fleetCommands } from "./fleet";
import { headroomCommands } from "./headroom";
import { mirrorCommands } from "./mirror";
import { mirrorPullCommands } from "./mirrorPull";
import { modelCommands } from "./models";
import { quotaCommands } from "./quotas";
import { printable } from "./table";
import { tokenCommands } from "./tokens";
import { usageCommands } from "./usage";

export { CtlError } from "./client";

const COMMANDS: readonly Command[] = [
  ...modelCommands,
  benchCommand,
  ...fleetCommands,
  ...mirrorCommands,
  ...mirrorPullCommands,
  ...quotaCommands,
  ...headroomCommands,
  ...auditCommands,
  ...usageCommands,
  ...tokenCommands,
];

const DEFAULT_SERVER = "http://127.0.0.1:8080";

const GLOBAL_HELP = `Global flags (anywhere on the line):
  --server URL   the llmgw server (env LLMGW_SERVER; default ${DEFAULT_SERVER})
  --token T      sent as Authorization: Bearer T (env LLMGW_TOKEN)
  --json         print the API's JSON, and nothing else, on stdout
  -h, --help     this help, or a command's

Exit codes: 0 done; 1 the server refused (its message on stderr); 2 usage error; 3 server unreachable.
`;

function overview(): string {
  const lines = COMMANDS.map((c) => `  ${usageLine(c)}\n      ${c.summary}`);
  return `llmgw ctl — the control plane's API from a terminal\n\n${lines.join("\n")}\n\n${GLOBAL_HELP}`;
}

function commandHelp(command: Command): string {
  return `${usageLine(command)}\n  ${command.summary}\n\n${GLOBAL_HELP}`;
}

export type CtlIo = {
  /** Answers requests instead of the network: tests pass an in-process app's `app.request`. */
  fetch?: CtlFetch;
  env?: Record<string, string | undefined>;
  stdout: Output;
  stderr: Output;
};

/**
 * Runs one `llmgw ctl` command line and resolves with its exit code; output goes to `io`, so a
 * test captures it without spawning. Refusals, usage errors and an unreachable server are
 * reported on stderr; anything else is a bug and is thrown.
 */
export async function runCtl(args: readonly string[], io: CtlIo): Promise<number> {
  try {
    return await dispatch([...args], io);
  } catch (err) {
    if (!(err instanceof CtlError)) throw err;
    // A refusal quotes the server, which quotes what it was sent: shown, never obeyed.
    const details = err.details.map((line) => `  ${printable(line)}\n`).join("");
    const hint = err.exitCode === 2 ? "(llmgw ctl --help lists the commands)\n" : "";
    io.stderr.write(`llmgw ctl: ${printable(err.message)}\n${details}${hint}`);
    return err.exitCode;
  }
}

/** The longest command whose words begin the line: `model set` before `model`. */
function commandFor(words: readonly string[]): Command | undefined {
  return COMMANDS.filter((c) => c.words.every((w, i) => words[i] === w)).sort(
    (a, b) => b.words.length - a.words.length,
  )[0];
}

function unknownCommand(words: readonly string[]): CtlError {
  const [first = ""] = words;
  const sub = COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === first).map((c) => c.words[1]);
  return sub.length > 0
    ? usage(`${first}: expected one of ${sub.join(", ")}${words[1] ? `, not "${words[1]}"` : ""}`)
    : usage(`no command "${words.join(" ")}"`);
}

function checkOperands(command: Command, operands: readonly string[]): void {
  const required = command.operands.filter((o) => !o.startsWith("[")).length;
  if (operands.length < required || operands.length > command.operands.length) {
    throw usage(`usage: ${usageLine(command)}`);
  }
}

function serverOf(values: Values, env: Record<string, string | undefined>): string {
  const server = values.server ?? env.LLMGW_SERVER ?? DEFAULT_SERVER;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw usage(`--server: "${server}" is not a URL, like ${DEFAULT_SERVER}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usage(`--server: "${server}" is not an http(s) URL`);
  }
  return server.replace(/\/+$/, "");
}

async function dispatch(args: string[], io: CtlIo): Promise<number> {
  const { words, values } = parseLine(args);
  const env = io.env ?? {};
  if (words.length === 0 || words[0] === "help") {
    if (values.help || words[0] === "help") {
      io.stdout.write(overview());
      return 0;
    }
    io.stderr.write(overview());
    return 2;
  }
  const command = commandFor(words);
  if (!command) throw unknownCommand(words);
  if (values.help) {
    io.stdout.write(commandHelp(command));
    return 0;
  }
  const operands = words.slice(command.words.length);
  checkOperands(command, operands);
  const extra = unexpectedFlags(values, command.options);
  if (extra.length > 0) {
    throw usage(`${command.words.join(" ")} does not take ${extra.join(", ")}; usage: ${usageLine(command)}`);
  }
  const json = values.json === true;
  const connection = {
    server: serverOf(values, env),
    token: values.token || env.LLMGW_TOKEN || null,
    fetch: io.fetch,
  };
  const { api, answer, sent } = connect(connection);
  const bold = io.stdout.isTTY === true && !json && env.NO_COLOR === undefined;
  return command.run(
    { api, answer, sent, json, style: { bold }, stdout: io.stdout, stderr: io.stderr, connection },
    operands,
    values,
  );
}

/** `llmgw ctl …` from main.ts: the process's streams and environment, the exit code as the process's. */
export async function ctl(args: string[]): Promise<void> {
  process.exitCode = await runCtl(args, { env: process.env, stdout: process.stdout, stderr: process.stderr });
}
