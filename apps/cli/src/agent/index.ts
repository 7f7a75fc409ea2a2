/** `llmgw agent --server URL --token T`: reports this machine and runs the replicas it is given. */
export async function agent(_args: string[]): Promise<void> {
  throw new Error("llmgw agent is not built yet");
}
