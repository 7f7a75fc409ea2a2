import { describe, expect, it } from "vitest";
import { agentOutdated, agentTokenCommand, joinCommand, shellWord, TOKEN_PLACEHOLDER } from "./join";

describe("the line that joins a node", () => {
  it("pipes this server's install.sh to sh, with the token and the name when there are", () => {
    expect(joinCommand({ server: "http://gw:8080/", token: "llmgw_abc-123", name: "rack-7" })).toBe(
      "curl -fsSL http://gw:8080/install.sh | sh -s -- --token llmgw_abc-123 --name rack-7",
    );
    expect(joinCommand({ server: "http://127.0.0.1:8080", token: null, name: null })).toBe(
      "curl -fsSL http://127.0.0.1:8080/install.sh | sh -s --",
    );
    expect(joinCommand({ server: "https://gw.example/llmgw", token: TOKEN_PLACEHOLDER, name: null })).toBe(
      "curl -fsSL https://gw.example/llmgw/install.sh | sh -s -- --token '<agent token>'",
    );
  });

  it("quotes what the shell would read otherwise", () => {
    expect(shellWord("plain-word_1.2:3")).toBe("plain-word_1.2:3");
    expect(shellWord("$(reboot)")).toBe("'$(reboot)'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord("")).toBe("''");
  });

  it("makes the agent token with ctl, bound to the node", () => {
    expect(agentTokenCommand("http://gw:8080", "rack-7")).toBe(
      "llmgw ctl token create --name rack-7 --role agent --node rack-7 --server http://gw:8080",
    );
  });

  it("marks an agent of another version than the server's, and none when the server's is unknown", () => {
    expect(agentOutdated("0.9.0", "0.1.0")).toBe(true);
    expect(agentOutdated("", "0.1.0")).toBe(true);
    expect(agentOutdated("0.1.0", "0.1.0")).toBe(false);
    expect(agentOutdated("0.9.0", null)).toBe(false);
  });
});
