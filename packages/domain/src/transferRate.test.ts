import { describe, expect, it } from "vitest";
import { formatSpeed, formatTimeLeft, TransferRate } from "./transferRate";

describe("TransferRate", () => {
  it("knows no speed before a second of progress, then averages over the last ten seconds", () => {
    const rate = new TransferRate();
    rate.add(0, 0);
    rate.add(500, 50e6);
    expect(rate.bytesPerSecond()).toBeNull();
    rate.add(2000, 200e6);
    expect(rate.bytesPerSecond()).toBe(100e6);
    expect(rate.secondsLeft(1000e6)).toBe(8);
    // Slower later: the early fast seconds leave the window.
    rate.add(12_000, 300e6);
    rate.add(22_000, 400e6);
    expect(rate.bytesPerSecond()).toBe(10e6);
  });

  it("starts over when the count goes back (a pull resumed elsewhere), and says nothing at a standstill", () => {
    const rate = new TransferRate();
    rate.add(0, 500);
    rate.add(2000, 100);
    rate.add(2500, 100);
    expect(rate.bytesPerSecond()).toBeNull();
    rate.add(4000, 100);
    expect(rate.secondsLeft(1000)).toBeNull();
  });
});

describe("formats", () => {
  it("says speeds and time left as a person reads them", () => {
    expect([formatSpeed(850e3), formatSpeed(112.4e6), formatSpeed(1.25e9)]).toEqual([
      "850 KB/s",
      "112 MB/s",
      "1.3 GB/s",
    ]);
    expect([formatTimeLeft(44.2), formatTimeLeft(61), formatTimeLeft(3 * 3600 + 20 * 60)]).toEqual([
      "45 s",
      "2 min",
      "3 h 20 min",
    ]);
  });
});
