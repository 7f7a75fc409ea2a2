import { useEffect, useState } from "react";

/** The current time, refreshed every `ms`, for "12 s ago" that stays true without events. */
export function useNow(ms = 5000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
