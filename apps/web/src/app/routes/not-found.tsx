import { PageHeader } from "../../components/PageHeader";
import { Link } from "../../lib/router";

export function NotFoundRoute() {
  return (
    <>
      <PageHeader title="Not found" />
      <p>
        There is no page here. <Link to="/">Back to capacity</Link>.
      </p>
    </>
  );
}
