import { mayCall } from "@llmgw/contract";
import { type ComponentType, lazy, Suspense, useEffect, useRef } from "react";
import { PageErrorBoundary } from "../components/PageErrorBoundary";
import { LoadError, Loading } from "../components/Status";
import { checkSession } from "../features/session/api/session";
import { SessionExpiredDialog } from "../features/session/components/SessionExpiredDialog";
import { SessionMenu } from "../features/session/components/SessionMenu";
import { SignInPage } from "../features/session/components/SignInPage";
import { Link, useLocation } from "../lib/router";
import { sessionState, useSession } from "../lib/session";
import { OfflineBanner } from "./OfflineBanner";
import { PAGES, type PagePath } from "./pages";
import { CapacityRoute } from "./routes/capacity";
import { NotFoundRoute } from "./routes/not-found";

// The wizard (and the form library it uses) loads only when someone opens it.
const ServeRoute = lazy(() => import("./routes/serve"));
// The catalogue's cards (inline edit, bench, autoscaling) come when the Models page opens: the
// Capacity page, the first load, shows none of them.
const ModelsRoute = lazy(() => import("./routes/models").then((m) => ({ default: m.ModelsRoute })));
// Only admins open the tokens page: nobody else downloads it.
const TokensRoute = lazy(() => import("./routes/tokens"));
// The other pages come when they are opened, so the first load (Capacity) carries only itself.
const FleetRoute = lazy(() => import("./routes/fleet").then((m) => ({ default: m.FleetRoute })));
const MirrorRoute = lazy(() => import("./routes/mirror").then((m) => ({ default: m.MirrorRoute })));
const QuotasRoute = lazy(() => import("./routes/quotas").then((m) => ({ default: m.QuotasRoute })));
const UsageRoute = lazy(() => import("./routes/usage"));
const AuditRoute = lazy(() => import("./routes/audit").then((m) => ({ default: m.AuditRoute })));

/** Each page's component: a page added to PAGES (./pages.ts) without one fails the type check. */
const COMPONENTS: Record<PagePath, ComponentType> = {
  "/": CapacityRoute,
  "/models": ModelsRoute,
  "/serve": ServeRoute,
  "/fleet": FleetRoute,
  "/mirror": MirrorRoute,
  "/quotas": QuotasRoute,
  "/usage": UsageRoute,
  "/audit": AuditRoute,
  "/tokens": TokensRoute,
};

export function App() {
  const { path } = useLocation();
  const normalized = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const page = PAGES.find((p) => p.path === normalized);
  const Page = page ? COMPONENTS[page.path] : NotFoundRoute;

  const session = useSession();
  const showing = session.status === "signed-in" || session.status === "expired";

  // After navigation, move focus to the new page's heading so keyboard and screen-reader users
  // start there, as they would after a full page load.
  const first = useRef(true);
  useEffect(() => {
    // The sign-in page titles itself.
    if (!showing) return;
    document.title = page ? `${page.label} · llmgw` : "Not found · llmgw";
    if (first.current) {
      first.current = false;
      return;
    }
    const focusTitle = () => {
      // Unless the page has already put focus somewhere of its own (the card just created).
      const active = document.activeElement;
      if (active && document.getElementById("main")?.contains(active)) return;
      document.getElementById("page-title")?.focus();
    };
    focusTitle();
    // A lazy page mounts its heading a little later.
    const timer = setTimeout(focusTitle, 200);
    return () => clearTimeout(timer);
  }, [page, showing]);

  if (session.status === "checking") {
    return (
      <main id="main">
        <Loading what="your session" />
      </main>
    );
  }
  if (session.status === "unreachable") {
    const retry = () => {
      sessionState.checking();
      void checkSession();
    };
    return (
      <main id="main">
        <LoadError
          what="the control plane"
          error={new Error("it did not answer; is it running?")}
          retry={retry}
        />
      </main>
    );
  }
  // The address stays the page asked for: once signed in, that page is what shows.
  if (session.status === "signed-out") return <SignInPage />;

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand" aria-label="llmgw home">
          llmgw
        </Link>
        <nav aria-label="Main">
          <ul>
            {PAGES.filter(
              (p) =>
                !("endpoint" in p) || ("session" in session && mayCall(session.session.role, p.endpoint)),
            ).map((p) => (
              <li key={p.path}>
                <Link
                  to={p.path}
                  aria-current={p === page ? "page" : undefined}
                  data-testid={`nav-${p.label.toLowerCase()}`}
                >
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <SessionMenu />
      </header>
      <OfflineBanner />
      <main id="main" tabIndex={-1}>
        <PageErrorBoundary key={normalized}>
          <Suspense fallback={<Loading what="the page" />}>
            <Page />
          </Suspense>
        </PageErrorBoundary>
      </main>
      {session.status === "expired" && <SessionExpiredDialog />}
    </>
  );
}
