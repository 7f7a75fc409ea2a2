import { describe, expect, it } from "vitest";
import { useGateway } from "./gateway-kit";

// SPEC §7.1a: the engine's own count of cached prompt tokens, read from either shape it answers in
// (`usage.prompt_tokens_details.cached_tokens`, llama-server's `timings.cache_n`), streamed or not.

const gw = useGateway();
const system = { role: "system" as const, content: "A long shared system prompt. ".repeat(60) };

describe("cached prompt tokens", () => {
  for (const cacheReport of ["usage", "timings"] as const)
    for (const stream of [false, true])
      it(`are counted from ${cacheReport === "usage" ? "usage" : "timings.cache_n"}, ${stream ? "streamed" : "not streamed"}`, async () => {
        const model = await gw.model();
        const engine = await gw.engine({ promptCacheTokens: 10_000, cacheReport });
        await gw.ready(model, [engine]);
        gw.outcomes.length = 0;

        for (const question of ["first", "second"]) {
          const messages = [system, { role: "user" as const, content: `${question} question` }];
          if (stream) {
            const chunks = await gw.client().chat.completions.create({
              model: model.name,
              messages,
              stream: true,
              stream_options: { include_usage: true },
            });
            for await (const _ of chunks);
          } else await gw.client().chat.completions.create({ model: model.name, messages });
        }

        const [first, second] = gw.outcomes;
        expect(first?.cachedTokens).toBe(0);
        // The second prompt begins as the first: all but its last message's words were cached.
        expect(second?.cachedTokens).toBeGreaterThan(0);
        expect(second?.cachedTokens).toBeLessThan(second?.promptTokens ?? 0);
        expect(second?.promptTokens).toBe(first?.promptTokens);
      });

  it("is absent for an engine that reports none", async () => {
    const model = await gw.model();
    const engine = await gw.engine();
    await gw.ready(model, [engine]);
    gw.outcomes.length = 0;
    await gw.client().chat.completions.create({ model: model.name, messages: [system] });
    expect(gw.outcomes[0]?.cachedTokens).toBeUndefined();
    expect(gw.outcomes[0]?.promptTokens).toBeGreaterThan(0);
  });
});
