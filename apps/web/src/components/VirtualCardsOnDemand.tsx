import { type ComponentType, lazy, Suspense } from "react";
import { AllCards, type CardsProps, DRAW_ALL_UP_TO } from "./cards";

// VirtualCards for the first page (Capacity): the windowing (TanStack Virtual, about 10 kB gzip)
// loads only when a list is longer than DRAW_ALL_UP_TO, so the first load of an ordinary fleet
// does not carry it. Until it has loaded, the first cards are drawn whole. Models and Fleet load
// with their own pages and use VirtualCards, windowing included (a card a link points at is
// focused on their first render).
const WindowedCards = lazy(() =>
  import("./WindowedCards").then((m) => ({ default: m.WindowedCards as ComponentType<CardsProps<unknown>> })),
);

export function VirtualCardsOnDemand<T>(props: CardsProps<T>) {
  if (props.items.length <= DRAW_ALL_UP_TO) return <AllCards {...props} />;
  return (
    <Suspense fallback={<AllCards {...props} items={props.items.slice(0, DRAW_ALL_UP_TO)} />}>
      <WindowedCards {...(props as CardsProps<unknown>)} />
    </Suspense>
  );
}
