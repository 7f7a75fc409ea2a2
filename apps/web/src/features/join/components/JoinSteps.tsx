import { agentTokenCommand, type JoinInfo, joinCommand, nodeName, TOKEN_PLACEHOLDER } from "@llmgw/domain";
import { useId, useState } from "react";
import { ActionError } from "../../../components/ActionError";
import { CommandLine } from "../../../components/CommandLine";

type Props = {
  info: JoinInfo;
  tokensRequired: boolean;
  /**
   * Makes an agent token bound to the node and answers its secret; null when the signed-in role may
   * not make tokens (they are then made with `llmgw ctl`).
   */
  createAgentToken: ((node: string) => Promise<string>) | null;
};

/** A token made here, for the node it was made for: shown in the line this once, never stored. */
type Made = { node: string; secret: string };

/**
 * How a machine joins (SPEC §5): the node's name, its agent token when the server asks for tokens
 * (made here by an admin, or with the ctl line shown), and the one line to run on the machine.
 */
export function JoinSteps({ info, tokensRequired, createAgentToken }: Props) {
  const id = useId();
  const [name, setName] = useState("");
  const [made, setMade] = useState<Made | null>(null);
  const [making, setMaking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const checked = name === "" ? null : nodeName.safeParse(name);
  const node = checked?.success ? checked.data : null;
  const secret = made !== null && made.node === node ? made.secret : null;
  const line = joinCommand({
    server: info.server,
    token: tokensRequired ? (secret ?? TOKEN_PLACEHOLDER) : null,
    name: node,
  });

  const make = (forNode: string) => {
    if (!createAgentToken) return;
    setMaking(true);
    setError(null);
    createAgentToken(forNode)
      .then(
        (secret) => setMade({ node: forNode, secret }),
        (err: unknown) => setError(err),
      )
      .finally(() => setMaking(false));
  };

  return (
    <div className="join-steps" data-testid="join-steps">
      <div className="field">
        <label htmlFor={`${id}-name`}>Node name</label>
        <input
          id={`${id}-name`}
          value={name}
          onChange={(e) => setName(e.target.value.trim())}
          placeholder="the machine's host name"
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${id}-name-hint`}
          data-testid="join-name"
        />
        <span id={`${id}-name-hint`} className={checked && !checked.success ? "field-error" : "muted"}>
          {checked && !checked.success
            ? "1 to 64 letters, digits and . _ : -"
            : "Optional: the machine's host name by default."}
        </span>
      </div>
      {tokensRequired && (
        <div data-testid="join-token-step">
          <p>
            This server asks for tokens: the node needs an agent token of its own, which speaks for that node
            only.
          </p>
          {secret !== null ? (
            <p className="hint-warn" data-testid="join-token-made">
              The line below holds {node}'s new agent token, shown this once: llmgw keeps only its hash.
            </p>
          ) : createAgentToken && node !== null ? (
            <div className="actions">
              <button
                type="button"
                disabled={making}
                onClick={() => make(node)}
                data-testid="join-make-token"
              >
                Create an agent token for {node}
              </button>
              <ActionError error={error} />
            </div>
          ) : (
            <>
              <p>An admin makes one with:</p>
              <CommandLine
                line={agentTokenCommand(info.server, node ?? "NODE")}
                label="the command that makes the agent token"
                testId="join-token-command"
              />
            </>
          )}
        </div>
      )}
      <p>
        Run on the machine (it needs Node.js 20 or newer; as root with systemd it installs and starts the
        service <code>llmgw-agent</code>, otherwise it prints the command that starts the agent):
      </p>
      <CommandLine line={line} label="the line that joins the machine" testId="join-line" />
    </div>
  );
}
