import { StandInEngine } from "@llmgw/simulation";
import { expect } from "@playwright/test";
import OpenAI from "openai";
import { gotoLive, modelServedAt, openModelCard, test } from "./fixtures";

// SPEC §7.1a on the model card: the share of prompt tokens the engines found in their cache, from
// real requests through the gateway to an engine that keeps a prompt cache.

test("a model's card shows its prompt cache hit ratio while it serves", async ({ page, api, baseURL }) => {
  const engine = await StandInEngine.start({ promptCacheTokens: 100_000, forgetful: true });
  try {
    const model = await modelServedAt(api, engine.url);
    await gotoLive(page, "/");
    const card = await openModelCard(page, model.name);

    const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: "none", maxRetries: 0 });
    const system = {
      role: "system" as const,
      content: "The same long instructions for every question. ".repeat(50),
    };
    let stop = false;
    // Keeps sending until the card has heard of it: events come once a second while there is traffic.
    const sending = (async () => {
      for (let i = 0; i < 40 && !stop; i++) {
        await client.chat.completions.create({
          model: model.name,
          messages: [system, { role: "user", content: `question ${i}` }],
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await expect(card.getByTestId("traffic-cache")).toHaveText(/^(8\d|9\d)%$/, { timeout: 15_000 });
    stop = true;
    await sending;
  } finally {
    await engine.close();
  }
});
