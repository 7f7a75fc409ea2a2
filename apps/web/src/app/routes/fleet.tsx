import { nodeStateSchema } from "@llmgw/domain";
import { attentionAsked, attentionFirstAsked } from "../../components/AttentionToggle";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useNodes } from "../../features/fleet/api/get-nodes";
import { useReplicas } from "../../features/fleet/api/get-replicas";
import { NodeList } from "../../features/fleet/components/NodeList";
import { useLocation } from "../../lib/router";
import { FirstRunGuide } from "../FirstRunGuide";

export function FleetRoute() {
  const nodes = useNodes();
  const replicas = useReplicas();
  const classes = useClasses();
  const { search } = useLocation();
  // An address's state that is not one (typed by hand) filters nothing rather than everything.
  const state = nodeStateSchema.safeParse(search.get("state")).data ?? null;
  return (
    <>
      <PageHeader title="Fleet" />
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
              />
            )}
          </Loaded>
        )}
      </Loaded>
    </>
  );
}
