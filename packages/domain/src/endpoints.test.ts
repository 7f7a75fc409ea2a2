import { describe, expect, it } from "vitest";
import { isLoopback, loopsBackTo } from "./endpoints";

describe("loopsBackTo: an endpoint that is llmgw itself", () => {
  it.each([
    "http://127.0.0.1:8080",
    "http://127.1.2.3:8080/",
    "http://localhost:8080",
    "http://LOCALHOST:8080",
    "http://app.localhost:8080",
    "http://0.0.0.0:8080",
    "http://[::1]:8080",
    "http://[::]:8080",
    "http://[::ffff:127.0.0.1]:8080",
    "http://[::ffff:0.0.0.0]:8080",
    "http://2130706433:8080",
  ])("%s is llmgw's own port on this machine", (endpoint) => {
    expect(loopsBackTo(endpoint, 8080)).toBe(true);
  });

  it("takes the scheme's port when none is written", () => {
    expect(loopsBackTo("http://127.0.0.1", 80)).toBe(true);
    expect(loopsBackTo("https://localhost/", 443)).toBe(true);
    expect(loopsBackTo("http://127.0.0.1", 8080)).toBe(false);
  });

  it.each([
    "http://127.0.0.1:8081",
    "http://10.0.0.7:8080",
    "http://[fe80::1]:8080",
    "http://[::ffff:10.0.0.7]:8080",
    "http://gpu-box:8080",
    "not a url",
  ])("%s is another server", (endpoint) => {
    expect(loopsBackTo(endpoint, 8080)).toBe(false);
  });
});

describe("isLoopback: the one rule for a host on this machine's loopback", () => {
  const loopback = ["localhost", "LOCALHOST", "app.localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"];
  const elsewhere = ["0.0.0.0", "::", "[::]", "10.0.0.7", "128.0.0.1", "[fe80::1]", "attacker.example"];
  it.each([
    ...loopback.map((host) => [host, true] as const),
    // 127.0.0.1 and 10.0.0.7 mapped into IPv6, as the URL parser writes them.
    ["[::ffff:7f00:1]", true] as const,
    ["[::ffff:a00:7]", false] as const,
    ["localhost.example", false] as const,
    ...elsewhere.map((host) => [host, false] as const),
  ])("%s: %s", (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});
