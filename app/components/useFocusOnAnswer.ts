import { useEffect, useRef } from "react";

/**
 * Moves focus to where an action's answer is shown (a Banner: it takes a ref and focuses
 * itself) each time a new answer arrives. After a submit the focus would otherwise stay on
 * the button, far below a banner at the top of the page: a keyboard or screen reader user
 * would not learn whether the save went through, and on a phone the banner is off-screen.
 * `answer` is the action's data (a new object per submit); nothing moves on the first render.
 */
export function useFocusOnAnswer<T extends { focus(): void }>(answer: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (answer !== undefined && answer !== null) ref.current?.focus();
  }, [answer]);
  return ref;
}
