// Routing by the prompt's beginning (SPEC §7.1a, issue 37) against two reference routers, each on
// fresh engines in the same run: a load-only router (fewest in flight, what llmgw did before) and
// a router told each request's tenant (the ceiling: it places tenants by hand). The workload is the
// issue's: 12 tenants, each a 1,500-word context behind a 300-word preamble all of them share,
// users in multi-turn conversations, 4 replicas of 4 slots whose engines keep a prompt cache and
// read uncached prompt tokens at a CPU node's pace. No request carries a hint (no `user`, no
// X-Session-Id). The reference routers run in this process, choosing the engine a client sends to
// directly (so they pay no proxy hop); llmgw runs as its own process.
//   BENCH='prefix routing'      the workload: 2 users a tenant
//   BENCH='prefix hot tenant'   one hot tenant: 8 of 19 users
// BENCH_PREFIX_SECONDS sets how long each router is measured (default 20); BENCH_PREFIX_DEBUG=1
// prints which tenants each engine served and why the slowest tenth of requests were slow.
import { connect } from "@llmgw/client";
import { StandInEngine } from "@llmgw/simulation";
import { child, median, percentile, type Row } from "./report";

export const names = ["prefix routing", "prefix hot tenant"];

const SECONDS = Number(process.env.BENCH_PREFIX_SECONDS ?? 20);
export const REPLICAS = 4;
export const SLOTS = 4;
export const TENANTS = 12;
/** Turns of one conversation before its user starts a new one. */
const TURNS = 6;
const ENGINE = {
  promptCacheTokens: 16_384,
  prefillTokensPerSecond: 1_000,
  tokensPerSecond: 60,
  replyTokens: 12,
  forgetful: process.env.BENCH_PREFIX_DEBUG === undefined,
} as const;

const WORDS =
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(
    " ",
  );
const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed * 3 + Math.floor(i / 16)) % WORDS.length]).join(
    " ",
  );
const PREAMBLE = `You are the support assistant of a shared platform. ${words(290, 1)}`;
const contextOf = (tenant: number) => `Tenant ${tenant}'s handbook: ${words(1500, tenant + 11)}`;

type Message = { role: "system" | "user" | "assistant"; content: string };
type Sample = { ttftMs: number; promptTokens: number; cachedTokens: number };
/** A sample with who asked what, for BENCH_PREFIX_DEBUG's account of the slow requests. */
type Asked = Sample & { tenant: number; user: number; conversation: number; label: string; at: number };
/** Where a request goes: an engine's URL and the slot to give back. */
export type Route = (tenant: number) => Promise<{ url: string; release: () => void }>;

/** The reference routers: fewest in flight, or the tenant's own replica; at most SLOTS each, the rest wait. */
function referenceRouter(urls: readonly string[], byTenant: boolean): Route {
  const inFlight = urls.map(() => 0);
  const waiting: Array<{ tenant: number; go: (at: number) => void }> = [];
  const pick = (tenant: number): number | null => {
    if (byTenant) {
      const at = tenant % urls.length;
      return (inFlight[at] ?? 0) < SLOTS ? at : null;
    }
    let best: number | null = null;
    for (let i = 0; i < urls.length; i++)
      if ((inFlight[i] ?? 0) < SLOTS && (best === null || (inFlight[i] ?? 0) < (inFlight[best] ?? 0)))
        best = i;
    return best;
  };
  const take = (at: number) => {
    inFlight[at] = (inFlight[at] ?? 0) + 1;
    return {
      url: `${urls[at]}/v1/chat/completions`,
      release: () => {
        inFlight[at] = (inFlight[at] ?? 1) - 1;
        const next = waiting.findIndex((w) => pick(w.tenant) !== null);
        if (next >= 0) {
          const [w] = waiting.splice(next, 1);
          const to = w ? pick(w.tenant) : null;
          if (w && to !== null) w.go(to);
        }
      },
    };
  };
  return (tenant) => {
    const at = pick(tenant);
    if (at !== null) return Promise.resolve(take(at));
    return new Promise((resolve) => waiting.push({ tenant, go: (to) => resolve(take(to)) }));
  };
}

/** One streamed chat completion: its time to first content, and the engine's prompt and cached tokens. */
async function send(
  url: string,
  messages: Message[],
  sent: number,
): Promise<{ sample: Sample; reply: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench", messages, stream: true, stream_options: { include_usage: true } }),
  });
  if (!res.ok || !res.body) throw new Error(`${res.status} ${await res.text()}`);
  let ttftMs = -1;
  let reply = "";
  let promptTokens = 0;
  let cachedTokens = 0;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buffered += decoder.decode(bytes, { stream: true });
    let end = buffered.indexOf("\n\n");
    while (end >= 0) {
      const line = buffered.slice(0, end).replace(/^data: /, "");
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
      if (line === "[DONE]" || line === "") continue;
      const chunk = JSON.parse(line);
      const piece = chunk.choices?.[0]?.delta?.content;
      if (typeof piece === "string" && piece !== "") {
        if (ttftMs < 0) ttftMs = performance.now() - sent;
        reply += piece;
      }
      if (chunk.usage) {
        promptTokens = chunk.usage.prompt_tokens ?? 0;
        cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      }
    }
  }
  return { sample: { ttftMs, promptTokens, cachedTokens }, reply };
}

/** Users of `tenantOf(user)` talking for SECONDS through `route`, each turn after the last. */
export async function drive(
  route: Route,
  users: number,
  tenantOf: (user: number) => number,
): Promise<Asked[]> {
  const samples: Asked[] = [];
  const start = performance.now();
  const end = start + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: users }, async (_, user) => {
      const tenant = tenantOf(user);
      let conversation = 0;
      while (performance.now() < end) {
        const messages: Message[] = [
          { role: "system", content: PREAMBLE },
          { role: "system", content: contextOf(tenant) },
        ];
        for (let turn = 0; turn < TURNS && performance.now() < end; turn++) {
          const label = `User ${user}, conversation ${conversation}, question ${turn}:`;
          messages.push({ role: "user", content: `${label} ${words(30, user + turn)}` });
          // From before the router chose: a reference router's wait for a slot counts as llmgw's queue does.
          const asked = performance.now();
          const { url, release } = await route(tenant);
          try {
            const { sample, reply } = await send(url, messages, asked);
            samples.push({ ...sample, tenant, user, conversation, label, at: asked - start });
            messages.push({ role: "assistant", content: reply });
          } finally {
            release();
          }
        }
        conversation++;
      }
    }),
  );
  return samples;
}

/**
 * BENCH_PREFIX_DEBUG: why the slowest tenth of `samples` was slow, from which engine served each
 * (the engines keep what they received in debug runs): a wait for a slot, or a prompt read again —
 * the tenant's first, one its engine had evicted, or one sent away from where it was cached.
 */
export function explainSlow(samples: readonly Asked[], fleet: readonly StandInEngine[]): string {
  const served = new Map<string, number>();
  fleet.forEach((engine, at) => {
    for (const r of engine.received) {
      const asked = r.text.match(/User \d+, conversation \d+, question \d+:/g);
      const last = asked?.[asked.length - 1];
      if (last) served.set(last, at);
    }
  });
  const slow = percentile(
    samples.map((s) => s.ttftMs),
    90,
  );
  const lastEngine = new Map<string, number>();
  const tenantOn = new Map<number, Set<number>>();
  const causes: Record<string, number> = {};
  let moved = 0;
  for (const s of [...samples].sort((a, b) => a.at - b.at)) {
    const engine = served.get(s.label) ?? -1;
    const conversation = `${s.user}/${s.conversation}`;
    const before = lastEngine.get(conversation);
    const seen = tenantOn.get(s.tenant) ?? new Set<number>();
    if (before !== undefined && before !== engine) moved++;
    if (s.ttftMs >= slow) {
      // More than a quarter of the tenant's context read again: a miss; else it waited for a slot.
      const cause =
        s.promptTokens - s.cachedTokens < 400
          ? `waited for a slot on engine ${engine}`
          : seen.size === 0
            ? "read again: the tenant's first request"
            : seen.has(engine)
              ? `read again: evicted from engine ${engine}`
              : "read again: sent to an engine new to the tenant";
      causes[cause] = (causes[cause] ?? 0) + 1;
    }
    lastEngine.set(conversation, engine);
    seen.add(engine);
    tenantOn.set(s.tenant, seen);
  }
  return `  slowest tenth (≥ ${slow.toFixed(0)} ms): ${JSON.stringify(causes)}; ${moved} turns on another engine than their conversation's last`;
}

export async function engines(): Promise<StandInEngine[]> {
  return Promise.all(Array.from({ length: REPLICAS }, () => StandInEngine.start(ENGINE)));
}

/** Declares the bench model on the llmgw at `server` and reports `fleet` ready as its replicas. */
export async function declareFleet(server: string, fleet: readonly StandInEngine[]): Promise<void> {
  const { api, answer } = connect({ server });
  await answer(
    api.models.$post({
      json: {
        name: "bench",
        source: "http://127.0.0.1/mirror/bench/v1/bench.gguf",
        contextLength: 32_768,
        scaling: { min: REPLICAS, max: REPLICAS },
        profiles: [
          {
            name: "cpu",
            engine: "llamacpp",
            minMemoryGB: 1,
            cpuCores: 1,
            args: ["--parallel", String(SLOTS)],
          },
        ],
      },
    }),
  );
  await answer(
    api.agents.heartbeat.$post({
      json: {
        node: { name: "bench-node", memoryGB: 64, cpuCount: 16 },
        replicas: fleet.map((e, i) => ({
          id: `bench-${i}`,
          model: "bench",
          state: "ready" as const,
          endpoint: e.url,
        })),
      },
    }),
  );
}

/** llmgw in its own process, its model's replicas on `fleet`. */
async function llmgwRoute(fleet: readonly StandInEngine[]) {
  const server = child("./serve.ts", ["app", "0", "0", "", "600"]);
  const { port } = await server.ask<{ port: number }>(null);
  await declareFleet(`http://127.0.0.1:${port}`, fleet);
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  const route: Route = async () => ({ url, release: () => {} });
  return { route, stop: () => server.stop() };
}

export type Figures = { p50: number; p90: number; hit: number; answered: number; min: number; max: number };

export function figuresOf(samples: readonly Sample[]): Figures {
  const ttft = samples.map((s) => s.ttftMs).filter((t) => t >= 0);
  const prompt = samples.reduce((sum, s) => sum + s.promptTokens, 0);
  const cached = samples.reduce((sum, s) => sum + s.cachedTokens, 0);
  return {
    p50: median(ttft),
    p90: percentile(ttft, 90),
    hit: prompt > 0 ? cached / prompt : 0,
    answered: samples.length,
    min: Math.min(...ttft),
    max: Math.max(...ttft),
  };
}

/** The three routers on fresh engines each, one after the other. */
async function compare(users: number, tenantOf: (user: number) => number) {
  const measured: Record<"llmgw" | "loadOnly" | "tenantAware", Figures> = {} as never;
  for (const name of ["loadOnly", "tenantAware", "llmgw"] as const) {
    const fleet = await engines();
    const urls = fleet.map((e) => e.url);
    const gateway = name === "llmgw" ? await llmgwRoute(fleet) : null;
    const route = gateway?.route ?? referenceRouter(urls, name === "tenantAware");
    try {
      const samples = await drive(route, users, tenantOf);
      measured[name] = figuresOf(samples);
      if (process.env.BENCH_PREFIX_DEBUG) console.log(explainSlow(samples, fleet));
      if (process.env.BENCH_PREFIX_DEBUG)
        for (const e of fleet) {
          const tenants = e.received.map((r) => /Tenant (\d+)'s/.exec(r.text)?.[1]);
          const counts: Record<string, number> = {};
          for (const t of tenants) counts[String(t)] = (counts[String(t)] ?? 0) + 1;
          console.log(`  ${name} engine: ${e.received.length} requests, tenants ${JSON.stringify(counts)}`);
        }
    } finally {
      await gateway?.stop();
      await Promise.all(fleet.map((e) => e.close()));
    }
    const f = measured[name];
    console.log(
      `${name}: time to first token p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms (min ${f.min.toFixed(0)}, max ${f.max.toFixed(0)}), cached ${(f.hit * 100).toFixed(1)}%, ${f.answered} answered`,
    );
  }
  return measured;
}

const ms = (f: Figures) =>
  `p50 ${f.p50.toFixed(0)} ms, p90 ${f.p90.toFixed(0)} ms, ${(f.hit * 100).toFixed(0)}% cached, ${f.answered} answered`;

export async function run(only: RegExp | null): Promise<Row[]> {
  const rows: Row[] = [];
  if (!only || only.test("prefix routing")) {
    console.log(
      `prefix routing: ${TENANTS} tenants × 2 users, ${REPLICAS} replicas × ${SLOTS} slots, ${SECONDS} s each`,
    );
    const m = await compare(TENANTS * 2, (user) => user % TENANTS);
    const p50 = m.llmgw.p50 / m.tenantAware.p50;
    const p90 = m.llmgw.p90 / m.tenantAware.p90;
    const hit = m.llmgw.hit / m.tenantAware.hit;
    const vsLoad = m.llmgw.p90 / m.loadOnly.p90;
    rows.push(
      {
        measure: "prefix routing, 12 tenants behind a shared preamble: TTFT p50 vs a tenant-aware router",
        value: ms(m.llmgw),
        peer: `tenant-aware: ${ms(m.tenantAware)}`,
        ratio: `${p50.toFixed(2)}×`,
        aim: "≤ 1.5×",
        met: p50 <= 1.5,
      },
      {
        measure: "… TTFT p90 vs tenant-aware",
        value: `${m.llmgw.p90.toFixed(0)} ms`,
        peer: `${m.tenantAware.p90.toFixed(0)} ms`,
        ratio: `${p90.toFixed(2)}×`,
        aim: "≤ 2.5×",
        met: p90 <= 2.5,
      },
      {
        measure: "… cache hit ratio vs tenant-aware",
        value: `${(m.llmgw.hit * 100).toFixed(1)}%`,
        peer: `${(m.tenantAware.hit * 100).toFixed(1)}%`,
        ratio: `${hit.toFixed(2)}×`,
        aim: "≥ 0.92×",
        met: hit >= 0.92,
      },
      {
        measure: "… TTFT p90 vs load-only",
        value: `${m.llmgw.p90.toFixed(0)} ms`,
        peer: `load-only: ${ms(m.loadOnly)}`,
        ratio: `${vsLoad.toFixed(2)}×`,
        aim: "≤ 0.25×",
        met: vsLoad <= 0.25,
      },
    );
  }
  if (!only || only.test("prefix hot tenant")) {
    console.log(`prefix hot tenant: tenant 0 has 8 of 19 users`);
    const m = await compare(19, (user) => (user < 8 ? 0 : user - 7));
    const vsLoad = m.llmgw.p90 / m.loadOnly.p90;
    rows.push({
      measure: "prefix routing, one hot tenant (8 of 19 users): TTFT p90 vs load-only",
      value: ms(m.llmgw),
      peer: `load-only: ${ms(m.loadOnly)}; tenant-aware: ${ms(m.tenantAware)}`,
      ratio: `${vsLoad.toFixed(2)}×`,
      aim: "≤ 0.5×",
      met: vsLoad <= 0.5,
    });
  }
  return rows;
}
