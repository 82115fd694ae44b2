/**
 * A manager's change of the team's data (statuses, labels): runs it, says how it went, lets a
 * refusal take the controls away (`useMyRole`'s `afterRefusal`: the role may have changed), and
 * reads the data again (the change's event would too, a moment later). Resolves to whether it
 * went through.
 */
import { messageOf } from '../../api/client';
import { useNotify } from '../../ui/notices';
import { useMyRole } from './use-my-role';

export type TeamChange = (what: string, action: () => Promise<unknown>, done?: string) => Promise<boolean>;

export function useTeamChange(reload: () => void): TeamChange {
  const { afterRefusal } = useMyRole();
  const notify = useNotify();
  return async (what, action, done) => {
    let ok = false;
    try {
      await action();
      if (done) notify(done);
      ok = true;
    } catch (failure) {
      notify(`Could not ${what}: ${messageOf(failure)}`, 'error');
      afterRefusal(failure);
    }
    reload();
    return ok;
  };
}
