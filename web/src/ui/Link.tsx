/** An ordinary link that moves within the app without reloading it (modifier clicks still open new tabs). */
import type { AnchorHTMLAttributes, TargetedMouseEvent } from 'preact';
import { navigate } from '../lib/router';

type Props = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

export function Link({ href, onClick, ...rest }: Props) {
  const follow = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (typeof onClick === 'function') onClick(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
