export const STEPS = ["Version", "Plan", "Settings", "Confirm"] as const;

/** Where the operator is in the wizard; earlier steps are buttons back to them. */
export function StepList({ step, onGo }: { step: number; onGo: (step: number) => void }) {
  return (
    <ol className="steps" aria-label="Steps">
      {STEPS.map((label, index) => {
        const n = index + 1;
        const current = n === step;
        return (
          <li key={label} className={current ? "step-current" : n < step ? "step-done" : ""}>
            {n < step ? (
              <button type="button" className="link" onClick={() => onGo(n)}>
                {n}. {label}
              </button>
            ) : (
              <span aria-current={current ? "step" : undefined}>
                {n}. {label}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
