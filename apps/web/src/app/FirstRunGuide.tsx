import { FirstRun, firstRunDone } from "../components/FirstRun";
import { useNodes } from "../features/fleet/api/get-nodes";
import { useInstall } from "../features/join/api/get-install";
import { JoinSteps } from "../features/join/components/JoinSteps";
import { useMirror } from "../features/mirror/api/get-mirror";
import { useMirrorInfo } from "../features/mirror/api/get-mirror-info";
import { useModels } from "../features/models/api/get-models";
import { useSession } from "../lib/session";
import { useAgentTokenMaker } from "./agentToken";

/**
 * The first-run guide where a new user lands (Capacity, Mirror, Fleet), fed by the live lists so
 * each step ticks off as it happens; gone once weights, a node and a model are all there. Nothing
 * until the lists have answered, so a loaded fleet never flashes the guide (nor asks for the
 * mirror's info).
 */
export function FirstRunGuide() {
  const mirror = useMirror();
  const nodes = useNodes();
  const models = useModels();
  const session = useSession();
  const counts =
    mirror.data && nodes.data && models.data
      ? { versions: mirror.data.length, nodes: nodes.data.length, models: models.data.length }
      : null;
  const shown = counts !== null && !firstRunDone(counts);
  // The mirror's directory and misplaced files, asked for only while the guide shows, and asked
  // again (no event says a file is misplaced) only until the first weights are in place.
  const info = useMirrorInfo({ enabled: shown, poll: shown && counts.versions === 0 });
  const install = useInstall(shown && counts.nodes === 0);
  const createAgentToken = useAgentTokenMaker();
  if (!shown) return null;
  const state = {
    ...counts,
    mirrorDir: info.data?.dir ?? null,
    misplaced: info.data?.misplaced.length ?? 0,
  };
  // Until the server has said its address (mirror.baseUrl, else this one), the browser's own.
  const join = install.data ?? {
    version: null,
    server: window.location.origin,
    serverFrom: "request",
    agent: null,
  };
  const joinSteps = (
    <JoinSteps
      info={join}
      tokensRequired={"session" in session && session.session.tokensRequired}
      createAgentToken={createAgentToken}
    />
  );
  return <FirstRun state={state} joinSteps={joinSteps} />;
}
