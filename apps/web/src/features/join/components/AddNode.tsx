import type { JoinInfo } from "@llmgw/domain";
import { useState } from "react";
import { JoinSteps } from "./JoinSteps";

type Props = {
  info: JoinInfo | undefined;
  tokensRequired: boolean;
  createAgentToken: ((node: string) => Promise<string>) | null;
};

/**
 * "Add a node" on the Fleet page: a button that opens the join steps below it. Closing them forgets
 * a token made there, so its secret is not shown again.
 */
export function AddNode({ info, tokensRequired, createAgentToken }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <div className="actions page-actions">
        <button
          type="button"
          className={open ? undefined : "primary"}
          aria-expanded={open}
          aria-controls="add-node-panel"
          onClick={() => setOpen(!open)}
          data-testid="add-node"
        >
          {open ? "Close" : "Add a node"}
        </button>
      </div>
      {open && (
        <section
          id="add-node-panel"
          className="card add-node"
          aria-labelledby="add-node-title"
          data-testid="add-node-panel"
        >
          <h2 id="add-node-title" className="section-title">
            Add a node
          </h2>
          {info ? (
            <JoinSteps info={info} tokensRequired={tokensRequired} createAgentToken={createAgentToken} />
          ) : (
            <p className="muted">Asking the server for its address…</p>
          )}
        </section>
      )}
    </>
  );
}
