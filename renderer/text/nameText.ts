/**
 * A name from a session file as one line of visible text. The escaper lives in `shared/` so the
 * link parsers and generated Markdown use the same one; the renderer keeps importing it from here.
 */
export { nameText } from '../../shared/format/visibleText';
