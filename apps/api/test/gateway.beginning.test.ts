import type { StandInEngine } from "@llmgw/simulation";
import { describe, expect, it } from "vitest";
import { until, useGateway } from "./gateway-kit";

// SPEC §7.1a through the official SDK: with no session key, a request goes where its prompt's
// beginning went before, a shared preamble does not herd tenants together, load spreads a hot one.

const gw = useGateway();
type Message = { role: "system" | "user" | "assistant"; content: string };

const PREAMBLE = "You answer questions about the documents below, briefly and politely. ".repeat(25);
const tenant = (n: number): Message => ({
  role: "system",
  content: `${PREAMBLE}\nDocuments of tenant ${n}: ${`tenant ${n} sells item ${n}. `.repeat(120)}`,
});
const ask = (model: string, messages: Message[]) => gw.client().chat.completions.create({ model, messages });
/** Which engine got each request whose body contains `marker`. */
const holders = (engines: StandInEngine[], marker: string) =>
  new Set(engines.flatMap((e, i) => (e.received.some((r) => r.text.includes(marker)) ? [i] : [])));

describe("routing by the prompt's beginning", () => {
  it("sends a tenant's requests to one replica, and different tenants to several", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);

    for (let round = 0; round < 3; round++)
      for (let n = 0; n < 12; n++)
        await ask(model.name, [tenant(n), { role: "user", content: `question ${round}` }]);

    for (let n = 0; n < 12; n++) expect(holders(engines, `tenant ${n} sells`).size).toBe(1);
    expect(engines.filter((e) => e.received.length > 0).length).toBeGreaterThan(1);
  });

  it("follows a conversation's earlier turns, even when they are the first half of it", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);
    const first: Message = { role: "user", content: "Tell me a long story. ".repeat(100) };

    for (let c = 0; c < 6; c++) {
      const conversation: Message[] = [{ role: "system", content: `conversation ${c}` }, first];
      for (let turn = 0; turn < 4; turn++) {
        const answer = await ask(model.name, conversation);
        conversation.push(
          { role: "assistant", content: answer.choices[0]?.message.content ?? "" },
          { role: "user", content: `turn ${turn} of conversation ${c}: go on. ${"more ".repeat(40)}` },
        );
      }
      const seen = engines.map(
        (e) => e.received.filter((r) => r.text.includes(`"conversation ${c}"`)).length,
      );
      expect(seen.filter((n) => n > 0)).toEqual([4]);
    }
  });

  it("spreads a hot tenant over several replicas once its replica is past the load bound", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine()];
    await gw.ready(model, engines);
    const releases = engines.map((e) => e.hold());

    const answers = Array.from({ length: 10 }, (_, i) =>
      ask(model.name, [tenant(99), { role: "user", content: `hot question ${i}` }]),
    );
    // Held engines answer nothing: all ten reach one only if the rest were sent elsewhere.
    await until(() => engines.reduce((sum, e) => sum + e.received.length, 0) === 10, "ten requests sent");
    for (const release of releases) release();
    await Promise.all(answers);

    expect(holders(engines, "tenant 99 sells").size).toBeGreaterThan(1);
  });

  it("moves only the prompts of a replica that leaves; the others stay where they were", async () => {
    const model = await gw.model();
    const engines = [await gw.engine(), await gw.engine(), await gw.engine()];
    const ids = await gw.ready(model, engines);
    for (let n = 0; n < 12; n++) await ask(model.name, [tenant(n), { role: "user", content: "before" }]);
    const before = Array.from({ length: 12 }, (_, n) => [...holders(engines, `tenant ${n} sells`)][0]);
    const leaving = before[0] ?? 0;

    await gw.api.deps.store.transaction((tx) => tx.replicas.remove(ids[leaving] as string));
    gw.api.deps.world.invalidate();
    for (const e of engines) e.received.length = 0;
    for (let n = 0; n < 12; n++) await ask(model.name, [tenant(n), { role: "user", content: "after" }]);

    for (let n = 0; n < 12; n++) {
      const now = [...holders(engines, `tenant ${n} sells`)];
      if (before[n] === leaving) expect(now).not.toContain(leaving);
      else expect(now).toEqual([before[n]]);
    }
  });
});
