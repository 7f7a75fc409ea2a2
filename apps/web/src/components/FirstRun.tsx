import type { ReactNode } from "react";
import { Link } from "../lib/router";

/** Where a new fleet stands: each step's fact, as the live lists say it. */
export type FirstRunState = {
  /** The mirror's directory on the server; null until the server has said. */
  mirrorDir: string | null;
  versions: number;
  misplaced: number;
  nodes: number;
  models: number;
};

/** Done once every step has happened: the guide then steps aside. */
export function firstRunDone(s: Pick<FirstRunState, "versions" | "nodes" | "models">): boolean {
  return s.versions > 0 && s.nodes > 0 && s.models > 0;
}

/**
 * The first-run guide on the empty screens (issue 18): put weights in the mirror, start an agent,
 * serve a version. Each step ticks off as the live lists change, with this server's mirror
 * directory in the words and its one line that joins a machine (`joinSteps`, issue 32).
 */
export function FirstRun({ state, joinSteps }: { state: FirstRunState; joinSteps: ReactNode }) {
  const dir = state.mirrorDir ?? "the mirror directory";
  return (
    <section className="card first-run" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title" className="section-title">
        Getting started
      </h2>
      <ol className="first-run-steps">
        <Step done={state.versions > 0} testId="first-run-mirror" title="Put weights in the mirror">
          <p>
            Copy a model's files to <code className="wrap">{`${dir}/<model>/<version>/<file>`}</code>, e.g.{" "}
            <code className="wrap">{`${dir}/llama-3.1-8b/Q4_K_M/llama-3.1-8b-Q4_K_M.gguf`}</code>. Or try{" "}
            <code>llmgw demo</code> for a simulated fleet and mirror.
          </p>
          {state.misplaced > 0 && (
            <p className="hint-warn" data-testid="first-run-misplaced">
              {state.misplaced} weights file{state.misplaced === 1 ? " is" : "s are"} not in that layout:{" "}
              <Link to="/mirror">see the Mirror page</Link> for where to move{" "}
              {state.misplaced === 1 ? "it" : "them"}.
            </p>
          )}
        </Step>
        <Step done={state.nodes > 0} testId="first-run-agent" title="Start an agent on each machine">
          {joinSteps}
        </Step>
        <Step done={state.models > 0} testId="first-run-serve" title="Serve a version">
          <p>
            Pick a version on the <Link to="/mirror">Mirror</Link> page and follow <em>Serve…</em>: the wizard
            proposes its memory and cores from the file and the nodes.
          </p>
        </Step>
      </ol>
    </section>
  );
}

function Step({
  done,
  testId,
  title,
  children,
}: {
  done: boolean;
  testId: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <li className={done ? "first-run-step done" : "first-run-step"} data-testid={testId} data-done={done}>
      <strong>
        <span aria-hidden="true">{done ? "✓ " : ""}</span>
        {title}
        {done && <span className="visually-hidden"> (done)</span>}
      </strong>
      {!done && children}
    </li>
  );
}
