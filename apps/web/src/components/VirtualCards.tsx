import { AllCards, type CardsProps, DRAW_ALL_UP_TO } from "./cards";
import { WindowedCards } from "./WindowedCards";

/** Cards in a grid: every one up to DRAW_ALL_UP_TO, else only the rows near the view. */
export function VirtualCards<T>(props: CardsProps<T>) {
  return props.items.length <= DRAW_ALL_UP_TO ? <AllCards {...props} /> : <WindowedCards {...props} />;
}
