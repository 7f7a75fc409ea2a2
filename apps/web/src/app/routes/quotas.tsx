import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useCapacity } from "../../features/capacity/api/get-capacity";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useHeadroom } from "../../features/capacity/api/get-headroom";
import { FleetTotals } from "../../features/capacity/components/FleetTotals";
import { HeadroomTable } from "../../features/capacity/components/HeadroomTable";
import { useQuotas } from "../../features/quotas/api/get-quotas";
import { QuotaList } from "../../features/quotas/components/QuotaList";

export function QuotasRoute() {
  const quotas = useQuotas();
  const capacity = useCapacity();
  const classes = useClasses();
  const headroom = useHeadroom();
  return (
    <>
      <PageHeader title="Quotas" />
      <Loaded query={quotas} what="the quotas">
        {(data) => <QuotaList quotas={data} />}
      </Loaded>
      <section aria-labelledby="quota-capacity-title" className="section" data-testid="quota-capacity">
        <h2 id="quota-capacity-title" className="section-title">
          Capacity
        </h2>
        <Loaded query={capacity} what="the fleet's capacity">
          {(data) => <FleetTotals capacity={data} classes={classes.data ?? []} />}
        </Loaded>
        <Loaded query={headroom} what="headroom">
          {(data) => <HeadroomTable headroom={data} />}
        </Loaded>
      </section>
    </>
  );
}
