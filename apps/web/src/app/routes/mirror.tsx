import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useMirror } from "../../features/mirror/api/get-mirror";
import { useMirrorInfo } from "../../features/mirror/api/get-mirror-info";
import { MirrorList } from "../../features/mirror/components/MirrorList";
import { FirstRunGuide } from "../FirstRunGuide";

export function MirrorRoute() {
  const mirror = useMirror();
  // The page that lists misplaced files: asked again while it is open (and visible).
  const info = useMirrorInfo({ poll: true });
  return (
    <>
      <PageHeader title="Mirror" />
      <FirstRunGuide />
      <Loaded query={mirror} what="the mirror">
        {(entries) => <MirrorList entries={entries} info={info.data ?? null} />}
      </Loaded>
    </>
  );
}
