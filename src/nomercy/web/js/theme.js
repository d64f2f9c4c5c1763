// The table's themes: the green felt and a midnight blue one. A theme is a name on
// <html data-theme>; the style sheet holds its colours. The player's pick is remembered.
export const THEMES = ["felt", "night"];

/** Put a theme on the page (an unknown or missing name: the first); returns its name. */
export function applyTheme(name) {
  const theme = THEMES.includes(name) ? name : THEMES[0];
  document.documentElement.dataset.theme = theme;
  return theme;
}

/** The theme after `name`, round the list. */
export const nextTheme = (name) => THEMES[(THEMES.indexOf(name) + 1) % THEMES.length];
