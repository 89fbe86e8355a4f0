import { html } from './html';

describe('html', () => {
  it('escapes every interpolated value, markup characters and quotes alike', () => {
    const payload = `<script>alert("x")</script>' onmouseover='steal()`;
    expect(html`<td title="${payload}">${payload}</td>`.markup).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;steal()">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;steal()</td>',
    );
  });

  it('inserts fragments it made itself, and lists of them, as markup', () => {
    const rows = ['a<b', 'c'].map((v) => html`<li>${v}</li>`);
    expect(html`<ul>${rows}</ul>`.markup).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
    expect(html`${undefined}${null}${false}${0}`.markup).toBe('0');
  });
});
