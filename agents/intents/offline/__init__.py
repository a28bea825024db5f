"""The offline intent classifier: a learned reading of each clause + a kNN vote over embedded exemplars.

The caller passes a `Neighbours` function that, for a batch of texts, returns each text's top-k nearest
exemplars as (intent value, cosine similarity), best first. The engine builds it over the shipped exemplars
(`exemplars.exemplars_load`) embedded with multilingual e5 (`query: ` prefix for both sides) and those staff add;
`bench/intent_offline_eval.py` has a brute-force numpy one.

A message is split into clauses (`split_clauses`); each clause is classified by
  1. offensive language (`emotion.is_offensive`)        -> EMOTION_SENSITIVE, first
  2. the learned intent reading (`agents.reading.intent`: a classifier over the bundled e5 vector and n-grams,
     fitted on the example files and the exemplars), when it is sure of an intent of substance; else small talk
     when the whole clause is small talk (`chitchat`)
  3. the kNN vote: softmax over the top-k cosines with temperature KNN_TEMPERATURE; its confidence is the
     winner's share damped by how close the best exemplar is (e5 cosines sit in a compressed band: below
     SIM_FLOOR a neighbour says nothing, above SIM_FULL it counts fully). A sure reading beats a disagreeing
     vote, with less confidence. Without one, a best cosine under OOS_SIMILARITY is OUT_OF_SCOPE,
     and two kNN-only votes are distrusted: CHITCHAT needs a strong, close vote (short business messages
     drift towards small talk) and EMOTION_SENSITIVE needs negative words (emotion_score)
and a very negative clause (emotion_score < EMOTION_SENSITIVE_THRESHOLD) also yields EMOTION_SENSITIVE.
Clauses are then merged: greetings / off-topic clauses are dropped next to a real request, duplicate
intents keep their first position and best confidence. Last, the learned reading of the whole message: where it
is sure of one intent (WHOLE_SURE), that intent comes first, and beside it stay only what a clause asks in its
own words (another request, a person, a question) and a feeling; what a clause only tells ("the steam wand
stopped working" before "can it be repaired under warranty?") is the request's story, and a guess of the
neighbours that no clause's words support gives way (an off-topic question is not a request for a person).

Confidence: >= 0.7 when the classifier is sure (reading and kNN agree, or either is strong), < 0.5 when
unsure (the engine then asks a clarifying question); OUT_OF_SCOPE when nothing matches.

`classify.classify_offline` is the entry point; `clauses` splits, `orders` reads order ids and `chitchat`
recognises small talk. A wording read wrong is taught by an example (agents/reading/examples/intent.*.jsonl).
"""
