import type { Child } from 'hono/jsx';

/** The page frame: skip link, navigation, who is logged in, which judge grades, and the content. */

export const NAV: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/', label: 'Runs & leaderboard' },
  { href: '/answers', label: 'Answers' },
  { href: '/calibration', label: 'Calibration' },
  { href: '/describe-then-solve', label: 'Describe-then-solve' },
  { href: '/benchmarks', label: 'Benchmarks' },
  { href: '/annotate', label: 'Annotate' },
];

/** Pages only an admin can open: linked only for a logged-in admin (others would get a 403). */
export const ADMIN_NAV: ReadonlyArray<{ href: string; label: string }> = [{ href: '/campaigns', label: 'Campaigns' }];

export interface LayoutProps {
  title: string;
  path: string;
  judge: string;
  user: { name: string; csrf: string; admin?: boolean } | null;
  children?: Child;
}

const isCurrent = (href: string, path: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));

export function Layout(p: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${p.title} · assay`}</title>
        <link rel="stylesheet" href="/static/style.css" />
        <link rel="icon" href="data:," />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            assay
          </a>
          <nav aria-label="Main">
            <ul>
              {[...NAV, ...(p.user?.admin ? ADMIN_NAV : [])].map((n) => (
                <li>
                  <a href={n.href} aria-current={isCurrent(n.href, p.path) ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            {p.user ? (
              <form method="post" action="/logout">
                <span>Logged in as {p.user.name}</span> <input type="hidden" name="_csrf" value={p.user.csrf} />
                <button type="submit">Log out</button>
              </form>
            ) : (
              <a href={`/login?next=${encodeURIComponent(p.path)}`}>Log in</a>
            )}
          </div>
        </header>
        <p class="judge-banner">Judge: {p.judge}</p>
        <main id="main" tabindex={-1}>
          <h1>{p.title}</h1>
          {p.children}
        </main>
      </body>
    </html>
  );
}

/** A chart with a caption; the SVG is server-rendered by vega (which escapes its text). */
export function Figure(props: { caption: string; svg: string }) {
  return (
    <figure class="chart">
      <div class="chart-svg" dangerouslySetInnerHTML={{ __html: props.svg }} />
      <figcaption>{props.caption}</figcaption>
    </figure>
  );
}
