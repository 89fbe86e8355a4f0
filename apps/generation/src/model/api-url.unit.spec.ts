import { apiUrl } from './model.client';

describe('the model API URL', () => {
  it('is the same whether the base URL names /v1 or not', () => {
    for (const base of ['https://api.example.com', 'https://api.example.com/', 'https://api.example.com/v1', 'https://api.example.com/v1/']) {
      expect(apiUrl(base, '/chat/completions')).toBe('https://api.example.com/v1/chat/completions');
    }
    expect(apiUrl('http://127.0.0.1:3010/openai', '/chat/completions')).toBe('http://127.0.0.1:3010/openai/v1/chat/completions');
  });
});
