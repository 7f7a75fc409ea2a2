import { VitestTestRunner } from "vitest/runners";

type Config = ConstructorParameters<typeof VitestTestRunner>[0];

/** A test name pattern no name matches. */
const NO_NAME = /(?!)/;

/**
 * The `postgres` project's runner. Without TEST_DATABASE_URL every test of its files is collected
 * and reported as skipped, so a run counts the same tests with or without a server. The skip is
 * decided as the files are collected, as `-t` filters, so nothing of a file runs: neither a test
 * nor a `beforeAll` of the file or of a kit that reaches the store (`createApp(api.deps)`,
 * `useGateway`'s server, `useCtl`'s first command), whatever the file registers.
 */
export default class PostgresRunner extends VitestTestRunner {
  constructor(config: Config) {
    super(process.env.TEST_DATABASE_URL ? config : { ...config, testNamePattern: NO_NAME });
  }
}
