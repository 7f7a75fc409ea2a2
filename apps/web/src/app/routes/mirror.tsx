import { Loaded } from "../../components/Loaded";
import { PageHeader } from "../../components/PageHeader";
import { useMirror } from "../../features/mirror/api/get-mirror";
import { MirrorList } from "../../features/mirror/components/MirrorList";

export function MirrorRoute() {
  const mirror = useMirror();
  return (
    <>
      <PageHeader title="Mirror" />
      <Loaded query={mirror} what="the mirror">
        {(entries) => <MirrorList entries={entries} />}
      </Loaded>
    </>
  );
}
