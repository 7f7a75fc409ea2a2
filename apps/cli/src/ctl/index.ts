/** `llmgw ctl …`: the command line over the same HTTP API and typed client as the dashboard. */
export async function ctl(_args: string[]): Promise<void> {
  throw new Error("llmgw ctl is not built yet");
}
