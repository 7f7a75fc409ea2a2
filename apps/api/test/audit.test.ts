import { describe, expect, it } from "vitest";
import { errorOf, modelInput, useApi } from "./harness";

// GET /audit?model= : every change, newest first (SPEC §2.7, §3).

const api = useApi();

async function createAndEdit() {
  const model = await (await api.client.models.$post({ json: modelInput({ description: "first" }) })).json();
  const res = await api.client.models[":name"].$patch(
    { param: { name: model.name }, json: { description: "second", owner: "research" } },
    { headers: { "If-Match": '"1"' } },
  );
  expect(res.status).toBe(200);
  return model;
}

describe("GET /audit", () => {
  it("is empty before any change", async () => {
    expect(await (await api.client.audit.$get({ query: {} })).json()).toEqual([]);
  });

  it("lists every change newest first, one entry per changed field, saying who, what and when", async () => {
    const model = await createAndEdit();

    const entries = await (await api.client.audit.$get({ query: {} })).json();

    // One patch's fields are appended in the card's order, so the later field is the newer entry.
    expect(entries.map((e) => [e.action, e.field])).toEqual([
      ["update", "description"],
      ["update", "owner"],
      ["create", null],
    ]);
    const ids = entries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const entry of entries) {
      expect(entry).toMatchObject({ by: "local", target: model.name });
      expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
    }
    expect(entries.find((e) => e.field === "owner")).toMatchObject({ before: "", after: "research" });
  });

  it("keeps only one model's entries with ?model=", async () => {
    const model = await createAndEdit();
    await createAndEdit();

    const entries = await (await api.client.audit.$get({ query: { model: model.name } })).json();

    expect(entries).toHaveLength(3);
    expect(new Set(entries.map((e) => e.target))).toEqual(new Set([model.name]));
  });

  it("answers at most ?limit= entries, the newest", async () => {
    await createAndEdit();

    const entries = await (await api.client.audit.$get({ query: { limit: "1" } })).json();

    expect(entries).toHaveLength(1);
    expect(entries[0]?.action).toBe("update");
  });

  it("is a 400 naming a query parameter it does not take, or a limit out of range", async () => {
    const unknown = await api.app.request("/api/v1/audit?node=x");
    const zero = await api.client.audit.$get({ query: { limit: "0" } });

    expect((await errorOf(unknown, 400)).fields).toEqual({ node: "not a field of this request" });
    expect(Object.keys((await errorOf(zero, 400)).fields ?? {})).toEqual(["limit"]);
  });
});
