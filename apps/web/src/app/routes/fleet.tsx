import { nodeStateSchema } from "@llmgw/domain";
import { useMemo } from "react";
import { attentionAsked, attentionFirstAsked } from "../../components/AttentionToggle";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useNodes } from "../../features/fleet/api/get-nodes";
import { useReplicas } from "../../features/fleet/api/get-replicas";
import { NodeList } from "../../features/fleet/components/NodeList";
import { useInstall } from "../../features/join/api/get-install";
import { AddNode } from "../../features/join/components/AddNode";
import { useLocation } from "../../lib/router";
import { useSession } from "../../lib/session";
import { useAgentTokenMaker } from "../agentToken";
import { FirstRunGuide } from "../FirstRunGuide";

export function FleetRoute() {
  const nodes = useNodes();
  const replicas = useReplicas();
  const classes = useClasses();
  const install = useInstall();
  const session = useSession();
  const createAgentToken = useAgentTokenMaker();
  const { search } = useLocation();
  // An address's state that is not one (typed by hand) filters nothing rather than everything.
  const state = nodeStateSchema.safeParse(search.get("state")).data ?? null;
  // The server's version and address, for marking the nodes that run another agent: one object
  // while they hold, so the memoised cards are not drawn again.
  const version = install.data?.version ?? null;
  const server = install.data?.server ?? null;
  const upgrade = useMemo(
    () => (version !== null && server !== null ? { version, server } : null),
    [version, server],
  );
  return (
    <>
      <PageHeader title="Fleet" />
      <AddNode
        info={install.data}
        tokensRequired={"session" in session && session.session.tokensRequired}
        createAgentToken={createAgentToken}
      />
      <FirstRunGuide />
      <Loaded query={nodes} what="the nodes">
        {(data) => (
          // The nodes with what runs on them: drawn before the replicas arrive, every node's memory
          // would read as unmanaged for a moment, and its replicas as none.
          <Loaded query={replicas} what="the replicas">
            {(running) => (
              <NodeList
                nodes={data}
                replicas={running}
                classes={classes.data ?? []}
                state={state}
                attention={attentionAsked(search)}
                first={attentionFirstAsked(search)}
                upgrade={upgrade}
              />
            )}
          </Loaded>
        )}
      </Loaded>
    </>
  );
}
