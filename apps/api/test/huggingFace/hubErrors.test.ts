import { describe, expect, it } from "vitest";
import { hubError } from "../../src/huggingFace/hubErrors";
import { HubRefused, HubTimeout } from "../../src/huggingFace/hubHttp";

// A pull's error is stored and shown to viewers: the Hub's address it quotes carries no user or
// password (a proxy's HF_ENDPOINT may), and a deadline passed is a 504 hub_timeout naming the setting.

const access = { endpoint: "https://proxyuser:hunter2@hub.internal", token: null, timeoutSeconds: 7 };
const at = { access, repo: "owner/name", revision: "main" };

describe("hubError", () => {
  it.each([
    [
      "unreachable",
      new Error("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) }),
    ],
    ["a 404", new HubRefused(404, null, null, "https://hub.internal/api/models/owner/name")],
    ["gated", new HubRefused(401, "GatedRepo", null, "https://hub.internal/owner/name/resolve/main/m.gguf")],
  ])("quotes the Hub's address without its user info (%s)", (_what, err) => {
    const refusal = hubError(err, at);
    expect(refusal.message).toContain("hub.internal");
    expect(refusal.message).not.toContain("hunter2");
    expect(refusal.message).not.toContain("proxyuser");
  });

  it("answers a deadline passed as 504 hub_timeout naming huggingface.timeoutSeconds", () => {
    const refusal = hubError(new HubTimeout("https://hub.internal/api/models/owner/name", 7), at);
    expect({ status: refusal.status, code: refusal.code }).toEqual({ status: 504, code: "hub_timeout" });
    expect(refusal.message).toContain("within 7 s (huggingface.timeoutSeconds)");
    const fromBody = hubError(
      new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      at,
    );
    expect(fromBody.code).toBe("hub_timeout");
  });
});
