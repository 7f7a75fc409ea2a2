import { FirstRun, firstRunDone } from "../components/FirstRun";
import { useNodes } from "../features/fleet/api/get-nodes";
import { useMirror } from "../features/mirror/api/get-mirror";
import { useMirrorInfo } from "../features/mirror/api/get-mirror-info";
import { useModels } from "../features/models/api/get-models";
import { useSession } from "../lib/session";

/**
 * The first-run guide where a new user lands (Capacity, Mirror, Fleet), fed by the live lists so
 * each step ticks off as it happens; gone once weights, a node and a model are all there. Nothing
 * until the lists have answered, so a loaded fleet never flashes the guide.
 */
export function FirstRunGuide() {
  const mirror = useMirror();
  const info = useMirrorInfo();
  const nodes = useNodes();
  const models = useModels();
  const session = useSession();
  if (!mirror.data || !nodes.data || !models.data) return null;
  const state = {
    server: window.location.origin,
    mirrorDir: info.data?.dir ?? null,
    tokensRequired: "session" in session && session.session.tokensRequired,
    versions: mirror.data.length,
    misplaced: info.data?.misplaced.length ?? 0,
    nodes: nodes.data.length,
    models: models.data.length,
  };
  return firstRunDone(state) ? null : <FirstRun state={state} />;
}
