import { useBeforeUnload, useBlocker } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { t } from "../i18n";
import { appBridge } from "./appBridge";

/**
 * A form with changes not saved yet: App Bridge's save bar shows while there are any (where the
 * admin has one), and leaving the page asks first: App Bridge's own confirmation where it has
 * one, the browser's otherwise. Returns whether the save bar is there, known after hydration
 * only: the server cannot tell which App Bridge the admin runs.
 */
export function useUnsavedChanges({
  dirty,
  saving,
  saveBarId,
}: {
  dirty: boolean;
  saving: boolean;
  saveBarId: string;
}): { hasSaveBar: boolean } {
  const [hasSaveBar, setHasSaveBar] = useState(false);
  useEffect(() => setHasSaveBar(typeof appBridge().saveBar?.show === "function"), []);

  useEffect(() => {
    if (!hasSaveBar) return;
    const saveBar = appBridge().saveBar;
    void (dirty ? saveBar?.show?.(saveBarId) : saveBar?.hide?.(saveBarId));
  }, [dirty, hasSaveBar, saveBarId]);

  // Leaving the page inside the app with unsaved changes asks first.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && !saving && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    if (blocker.state !== "blocked") return;
    const leaveConfirmation = appBridge().saveBar?.leaveConfirmation;
    if (typeof leaveConfirmation === "function") void leaveConfirmation().then(() => blocker.proceed());
    else if (window.confirm(t("settings.leaveConfirm"))) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useBeforeUnload(
    useCallback(
      (event: BeforeUnloadEvent) => {
        if (dirty && !hasSaveBar) event.preventDefault();
      },
      [dirty, hasSaveBar],
    ),
  );
  return { hasSaveBar };
}
