// Vitest's global setup, so the line comes once per run rather than once per test file: without
// TEST_DATABASE_URL the PostgreSQL cases (describeOnPostgres in @llmgw/store/testing, and the
// `postgres` project's run of the API and CLI suites, scripts/vitest-postgres-runner.ts) are
// reported as skipped, and this says how to run them.
export default function announceSkippedPostgres(): void {
  if (process.env.TEST_DATABASE_URL) return;
  console.log(
    "PostgreSQL cases skipped: run them with TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test pnpm test",
  );
}
