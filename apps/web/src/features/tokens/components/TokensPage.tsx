import type { CreatedToken } from "@llmgw/contract";
import { contract } from "@llmgw/contract";
import { useState } from "react";
import { Loaded } from "../../../components/Loaded";
import { useMayCall, useWhoAmI } from "../../../lib/session";
import { useTokens } from "../api/get-tokens";
import { CreateTokenForm } from "./CreateTokenForm";
import { NewTokenSecret } from "./NewTokenSecret";
import { TokenList } from "./TokenList";

/** Admins' tokens: the list, a form to make one, and the new secret shown once. */
export function TokensPage() {
  const mayList = useMayCall(contract.tokens.list);
  const mayCreate = useMayCall(contract.tokens.create);
  const whoAmI = useWhoAmI();
  const tokens = useTokens(mayList);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedToken | null>(null);

  if (!mayList)
    return (
      <p className="notice" data-testid="tokens-forbidden">
        {whoAmI ?? "Signed in"}: managing tokens needs an admin token.
      </p>
    );
  return (
    <>
      {created && <NewTokenSecret created={created} onDone={() => setCreated(null)} />}
      <div className="actions page-actions">
        {mayCreate && !adding && (
          <button type="button" onClick={() => setAdding(true)} data-testid="token-add">
            New token…
          </button>
        )}
      </div>
      {adding && (
        <CreateTokenForm
          onCreated={(made) => {
            setAdding(false);
            setCreated(made);
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      <Loaded query={tokens} what="the tokens">
        {(data) => <TokenList tokens={data} />}
      </Loaded>
    </>
  );
}
