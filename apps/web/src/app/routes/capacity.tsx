import type { Class } from "@llmgw/domain";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useCapacity } from "../../features/capacity/api/get-capacity";
import { useClasses } from "../../features/capacity/api/get-classes";
import { CapacityBoard } from "../../features/capacity/components/CapacityBoard";
import { FleetTotals, hasTotals } from "../../features/capacity/components/FleetTotals";
import { HealthLine } from "../../features/capacity/components/HealthLine";
import { useModels } from "../../features/models/api/get-models";
import { FirstRunGuide } from "../FirstRunGuide";

/** One array while the classes load, so the memoised cards see the same props until they arrive. */
const NO_CLASSES: Class[] = [];

export function CapacityRoute() {
  const capacity = useCapacity();
  const classes = useClasses();
  const models = useModels();
  const classList = classes.data ?? NO_CLASSES;
  return (
    <>
      <PageHeader title="Capacity" />
      <FirstRunGuide />
      {models.data && models.data.length > 0 && (
        <HealthLine models={models.data} scheduler={capacity.data?.scheduler} />
      )}
      <Loaded query={capacity} what="the fleet's capacity">
        {/* No node yet: totals of zero say nothing the guide above does not. */}
        {(data) => (hasTotals(data) ? <FleetTotals capacity={data} classes={classList} /> : null)}
      </Loaded>
      <Loaded query={models} what="the models">
        {(data) => <CapacityBoard models={data} classes={classList} />}
      </Loaded>
    </>
  );
}
