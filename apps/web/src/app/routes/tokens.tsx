import { PageHeader } from "../../components/PageHeader";
import { TokensPage } from "../../features/tokens/components/TokensPage";

/** Loaded lazily (see App): only admins open it, so nobody else downloads it. */
export default function TokensRoute() {
  return (
    <>
      <PageHeader title="Tokens" />
      <TokensPage />
    </>
  );
}
