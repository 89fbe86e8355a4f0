import { envelopeFields, eventTypes } from './generated/event-types';
import { subjectFor, topicFor } from './event-types';
import { loadSchema } from './schemas';

describe('topics and subjects', () => {
  it('names a topic after its event in kebab case, behind the optional prefix', () => {
    expect(topicFor('TaskRequested')).toBe('task-requested');
    expect(topicFor('TaskRequested', 'audit.')).toBe('audit.task-requested');
    expect(subjectFor('audit.task-requested')).toBe('audit.task-requested-value');
  });
});

describe('schemas/', () => {
  it.each(eventTypes)('%s is a namespaced record carrying the whole envelope', (eventType) => {
    const schema = loadSchema(eventType);
    expect(schema.type).toBe('record');
    expect(schema.name).toBe(eventType);
    expect(schema.namespace).toBe('com.taskplatform.events');
    expect(schema.fields.slice(0, envelopeFields.length).map((f) => f.name)).toEqual([...envelopeFields]);
    const causation = schema.fields.find((f) => f.name === 'causationId');
    expect(causation).toMatchObject({ type: ['null', 'string'], default: null });
  });
});
