import { type ReactNode, useId } from "react";

export type ControlProps = {
  id: string;
  "aria-invalid": boolean | undefined;
  "aria-describedby": string | undefined;
};

type Props = {
  label: ReactNode;
  /** Shown under the control in red, and announced with it. */
  error?: string | undefined;
  /** Shown under the control in grey. */
  hint?: ReactNode;
  /** `data-testid` of the wrapper; the error inside is `field-error`. */
  testId?: string;
  className?: string;
  children: (control: ControlProps) => ReactNode;
};

/** A labelled control with its hint and error wired to it for screen readers. */
export function Field({ label, error, hint, testId, className, children }: Props) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div
      className={`field${error ? " field-invalid" : ""}${className ? ` ${className}` : ""}`}
      data-testid={testId}
    >
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": described || undefined })}
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} data-testid="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
