import { contract } from "@llmgw/contract";
import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useMirror } from "../../features/mirror/api/get-mirror";
import { useMirrorInfo } from "../../features/mirror/api/get-mirror-info";
import { usePulls } from "../../features/mirror/api/get-pulls";
import { AddFromHub } from "../../features/mirror/components/AddFromHub";
import { MirrorList } from "../../features/mirror/components/MirrorList";
import { PullList } from "../../features/mirror/components/PullList";
import { useMayCall } from "../../lib/session";
import { FirstRunGuide } from "../FirstRunGuide";

export function MirrorRoute() {
  const mirror = useMirror();
  // The page that lists misplaced files: asked again while it is open (and visible).
  const info = useMirrorInfo({ poll: true });
  const mayPull = useMayCall(contract.pulls.create);
  const pulls = usePulls();
  return (
    <>
      <PageHeader title="Mirror" />
      {mayPull && <AddFromHub />}
      {pulls.data && <PullList pulls={pulls.data} />}
      <FirstRunGuide />
      <Loaded query={mirror} what="the mirror">
        {(entries) => <MirrorList entries={entries} info={info.data ?? null} />}
      </Loaded>
    </>
  );
}
