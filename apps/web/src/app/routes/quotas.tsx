import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { Empty } from "../../components/Status";
import { useCapacity } from "../../features/capacity/api/get-capacity";
import { useClasses } from "../../features/capacity/api/get-classes";
import { useHeadroom } from "../../features/capacity/api/get-headroom";
import { FleetTotals, hasTotals } from "../../features/capacity/components/FleetTotals";
import { HeadroomTable } from "../../features/capacity/components/HeadroomTable";
import { useQuotas } from "../../features/quotas/api/get-quotas";
import { QuotaList } from "../../features/quotas/components/QuotaList";
import { Link } from "../../lib/router";

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
          {(data) =>
            hasTotals(data) ? (
              <FleetTotals capacity={data} classes={classes.data ?? []} />
            ) : (
              // No node yet: no totals of zero, and where to start instead.
              <Empty>
                No node has reported yet: <Link to="/fleet">start an agent</Link> to have capacity to share.
              </Empty>
            )
          }
        </Loaded>
        <Loaded query={headroom} what="headroom">
          {(data) => <HeadroomTable headroom={data} />}
        </Loaded>
      </section>
    </>
  );
}
