/**
 * The buttons under a form that creates or saves something: the first sends it and says so while
 * the request runs (disabled, so a second click cannot send it twice); the second leaves unsent.
 */
export function SubmitOrCancel({
  label,
  pendingLabel,
  pending,
  testId,
  onCancel,
}: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  testId: string;
  onCancel: () => void;
}) {
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={pending} data-testid={testId}>
        {pending ? pendingLabel : label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
