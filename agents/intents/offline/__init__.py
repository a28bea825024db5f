"""The offline intent classifier: priority keyword rules + a kNN vote over embedded exemplars.

Pure Python (no Django, no database, no model): the caller passes a `Neighbours` function that, for a
batch of texts, returns each text's top-k nearest exemplars as (intent value, cosine similarity),
best first. The engine builds it over the shipped exemplars (`exemplars.exemplars_load`) embedded with
multilingual e5 (`query: ` prefix for both sides); `bench/intent_offline_eval.py` has a brute-force numpy one.

A message is split into clauses (`split_clauses`); each clause is classified by
  1. offensive language (`emotion.is_offensive`)        -> EMOTION_SENSITIVE, first
  2. priority keyword rules (`keyword_intents`), in tiers: ticket words (return / refund / complaint /
     after-sales ...), business words (order / price / stock / logistics ...), chitchat, knowledge
  3. the kNN vote: softmax over the top-k cosines with temperature KNN_TEMPERATURE; its confidence is the
     winner's share damped by how close the best exemplar is (e5 cosines sit in a compressed band: below
     SIM_FLOOR a neighbour says nothing, above SIM_FULL it counts fully). A keyword beats a disagreeing
     vote, with less confidence. Without a keyword, a best cosine under OOS_SIMILARITY is OUT_OF_SCOPE,
     and two kNN-only votes are distrusted: CHITCHAT needs a strong, close vote (short business messages
     drift towards small talk) and EMOTION_SENSITIVE needs negative words (emotion_score)
and a very negative clause (emotion_score < EMOTION_SENSITIVE_THRESHOLD) also yields EMOTION_SENSITIVE.
Clauses are then merged: greetings / off-topic clauses are dropped next to a real request, duplicate
intents keep their first position and best confidence.

Confidence: >= 0.7 when the classifier is sure (keyword and kNN agree, or either is strong), < 0.5 when
unsure (the engine then asks a clarifying question); OUT_OF_SCOPE when nothing matches.

`classify.classify_offline` is the entry point; `clauses` splits, `keywords` holds the rules, `orders`
reads order ids and `chitchat` recognises small talk.
"""
