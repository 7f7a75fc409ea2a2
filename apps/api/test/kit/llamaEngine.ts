import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import {
  getLlama,
  type LlamaContextSequence,
  LlamaLogLevel,
  type LlamaModel,
  type Token,
} from "node-llama-cpp";

// A test engine that runs a real llama.cpp (node-llama-cpp's prebuilt CPU binding) behind the
// slice of llama-server's HTTP API the gateway and agents use: `/health` (503 while loading) and
// `/v1/chat/completions`, streamed or not, with real token counts in `usage`. An agent starts it
// as an engine command:
//   node --import tsx apps/api/test/kit/llamaEngine.ts --model {path} --host {host} --port {port}
// It writes the prompt itself ("role: content" lines), so a model needs no chat template. One
// request generates at a time; the others wait their turn, as in a one-slot llama-server.

const { values: flags } = parseArgs({
  options: {
    model: { type: "string" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8080" },
    threads: { type: "string", default: "1" },
    "ctx-size": { type: "string", default: "0" },
  },
  // An engine command may pass llama-server's other flags ({args}, --metrics); they mean nothing here.
  strict: false,
});
if (typeof flags.model !== "string") {
  process.stderr.write("usage: llamaEngine --model <file.gguf> [--host h] [--port p] [--threads n]\n");
  process.exit(2);
}
const modelPath = flags.model;
const alias = basename(modelPath);

type Loaded = { model: LlamaModel; sequence: LlamaContextSequence; contextSize: number };
let loaded: Loaded | null = null;
let turn: Promise<unknown> = Promise.resolve();

type ChatBody = {
  model?: string;
  messages?: { role?: string; content?: unknown }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  seed?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
};

const server = createServer((req, res) => {
  void answer(req, res).catch((err: unknown) => {
    if (res.headersSent) res.destroy();
    else fail(res, 500, err instanceof Error ? err.message : String(err));
  });
});

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && path === "/health") {
    if (loaded) return json(res, 200, { status: "ok" });
    return fail(res, 503, "Loading model", "unavailable_error");
  }
  if (req.method === "GET" && path === "/v1/models") {
    return json(res, 200, { object: "list", data: [{ id: alias, object: "model", owned_by: "llamacpp" }] });
  }
  if (req.method !== "POST" || path !== "/v1/chat/completions") return fail(res, 404, "File Not Found");
  if (!loaded) return fail(res, 503, "Loading model", "unavailable_error");
  let body: ChatBody;
  try {
    body = JSON.parse(await readBody(req)) as ChatBody;
  } catch {
    return fail(res, 400, "the body is not JSON", "invalid_request_error");
  }
  if (!Array.isArray(body.messages)) return fail(res, 400, "'messages' is required", "invalid_request_error");
  const engine = loaded;
  const run = turn.then(() => complete(engine, body, res));
  turn = run.catch(() => {});
  await run;
}

async function complete(engine: Loaded, body: ChatBody, res: ServerResponse) {
  const { model, sequence, contextSize } = engine;
  const prompt = [...promptTokens(model), ...model.tokenize(promptText(body.messages ?? []))];
  const room = contextSize - prompt.length;
  if (room <= 0)
    return fail(res, 400, "the request exceeds the available context size", "invalid_request_error");
  // As llama-server reads it: none, or -1, generates until the context is full.
  const asked = body.max_completion_tokens ?? body.max_tokens ?? -1;
  const maxTokens = asked > 0 ? Math.min(asked, room) : room;
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const name = body.model ?? alias;
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: name, choices, ...extra })}\n\n`;
  if (body.stream) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]));
  }
  // A client that goes away (while waiting its turn, too) stops the generation, so the next
  // request's turn comes at once.
  const gone = () => res.socket === null || res.socket.destroyed;

  const generated: Token[] = [];
  let sent = "";
  let finish: "stop" | "length" = "length";
  await sequence.clearHistory();
  const options = {
    temperature: body.temperature ?? 0.8,
    ...(body.seed === undefined ? {} : { seed: body.seed }),
  };
  for await (const token of sequence.evaluate(prompt, options)) {
    if (gone()) break;
    if (model.isEogToken(token)) {
      finish = "stop";
      break;
    }
    generated.push(token);
    // A byte token may end inside a character; its text waits until the character is whole.
    const text = model.detokenize(generated);
    if (body.stream && !text.endsWith("\uFFFD") && text.length > sent.length) {
      res.write(chunk([{ index: 0, delta: { content: text.slice(sent.length) }, finish_reason: null }]));
      sent = text;
    }
    if (generated.length >= maxTokens) break;
  }
  if (gone()) return;
  const text = model.detokenize(generated);
  const usage = {
    prompt_tokens: prompt.length,
    completion_tokens: generated.length,
    total_tokens: prompt.length + generated.length,
  };
  if (!body.stream) {
    return json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: name,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: finish }],
      usage,
    });
  }
  const rest = text.slice(sent.length);
  res.write(chunk([{ index: 0, delta: rest ? { content: rest } : {}, finish_reason: finish }]));
  if (body.stream_options?.include_usage) res.write(chunk([], { usage }));
  res.end("data: [DONE]\n\n");
}

function promptTokens(model: LlamaModel): Token[] {
  return model.tokens.bos === null ? [] : [model.tokens.bos];
}

function promptText(messages: { role?: string; content?: unknown }[]): string {
  const lines = messages.map((m) => `${m.role ?? "user"}: ${contentText(m.content)}`);
  return `${lines.join("\n")}\nassistant:`;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** llama-server's error shape. */
function fail(res: ServerResponse, status: number, message: string, type = "server_error"): void {
  json(res, status, { error: { code: status, message, type } });
}

async function load(): Promise<void> {
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const wanted = Number(flags["ctx-size"]);
  const context = await model.createContext({
    contextSize: wanted > 0 ? wanted : model.trainContextSize,
    threads: Math.max(1, Number(flags.threads) || 1),
  });
  loaded = { model, sequence: context.getSequence(), contextSize: context.contextSize };
  process.once("SIGTERM", () => {
    server.close();
    void llama.dispose().finally(() => process.exit(0));
  });
}

server.listen(Number(flags.port), String(flags.host), () => {
  // As llama-server says it; with --port 0 this is how a caller learns the port.
  const { address, port } = server.address() as AddressInfo;
  process.stdout.write(`server is listening on http://${address}:${port}\n`);
  void load().catch((err: unknown) => {
    process.stderr.write(`cannot load ${modelPath}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
});
