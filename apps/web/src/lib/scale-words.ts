import { type AutoscaleView, counted, type Scaling } from "@llmgw/domain";

/** "1–4": the replicas an autoscaled model runs between (SPEC §9.5). */
export function rangeText(scaling: Pick<Scaling, "min" | "max">): string {
  return `${scaling.min}–${scaling.max}`;
}

/** "may scale down at 14:05" while the window holds wanted above what demand asks; else null. */
export function holdText(view: Pick<AutoscaleView, "holdUntil">, locale?: string): string | null {
  if (view.holdUntil === null) return null;
  const at = new Date(view.holdUntil);
  if (Number.isNaN(at.getTime())) return null;
  return `may scale down at ${at.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" })}`;
}

/** "wanted 4 for 14 requests in flight or queued (4 per replica)". */
export function wantedText(view: Pick<AutoscaleView, "wanted" | "demand" | "target">): string {
  return `wanted ${view.wanted} for ${counted(view.demand, "request")} in flight or queued (${view.target} per replica)`;
}

/** "owner research's quota allows 2" when the quota stops it short of wanted (SPEC §9.4); else null. */
export function quotaCapText(view: Pick<AutoscaleView, "quotaAllows">, owner: string): string | null {
  if (view.quotaAllows === null) return null;
  const whose = owner === "" ? "the unowned models' quota" : `owner ${owner}'s quota`;
  return `${whose} allows ${view.quotaAllows}`;
}
