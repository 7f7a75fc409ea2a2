/** The path of an up-to-date bundle of the CLI, building it first when any input changed. */
export function freshBundle(): Promise<string>;
