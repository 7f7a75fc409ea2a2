import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useNodes } from "../../features/fleet/api/get-nodes";
import { useReplicas } from "../../features/fleet/api/get-replicas";
import { NodeList } from "../../features/fleet/components/NodeList";
import { FirstRunGuide } from "../FirstRunGuide";

export function FleetRoute() {
  const nodes = useNodes();
  const replicas = useReplicas();
  const classes = useClasses();
  return (
    <>
      <PageHeader title="Fleet" />
      <FirstRunGuide />
      <Loaded query={nodes} what="the nodes">
        {(data) => <NodeList nodes={data} replicas={replicas.data ?? []} classes={classes.data ?? []} />}
      </Loaded>
    </>
  );
}
