"""The online clusterer as a pure core: assignment, profiles, syndication, stubs, horizon,
determinism and bounded work."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herald.clusters.assignment import ClusteringConfig
from herald.clusters.evidence import DEFAULT_LINK_MODEL, LinkEvidence, LinkModel
from herald.clusters.item import StoryItem, candidate_phrases, story_names, story_numbers
from herald.clusters.online import OnlineClusterer
from herald.clusters.profile import ClusterProfile
from tests.clusters.factories import STORIES, make_story_item

T0 = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def story_items() -> list[tuple[str, StoryItem]]:
    """Every report, interleaved across stories, one hour apart."""
    rows: list[tuple[str, str, str]] = []
    longest = max(len(reports) for reports in STORIES.values())
    for index in range(longest):
        for story, reports in STORIES.items():
            if index < len(reports):
                rows.append((story, *reports[index]))
    return [
        (story, make_story_item(f"{story}-{n}", title, body, published_at=T0 + timedelta(hours=n)))
        for n, (story, title, body) in enumerate(rows)
    ]


def run(items: list[StoryItem], clusterer: OnlineClusterer | None = None) -> list[tuple[str, str]]:
    clusterer = clusterer or OnlineClusterer()
    out = []
    for item in items:
        assignment = clusterer.assign(item, now=item.published_at + timedelta(minutes=5))
        out.append((assignment.cluster.cluster_id, assignment.link_confidence))
    return out


def test_reports_of_one_story_share_a_cluster_and_similar_stories_do_not() -> None:
    labelled = story_items()
    result = run([item for _, item in labelled])
    clusters: dict[str, set[str]] = {}
    for (story, _), (cluster_id, _) in zip(labelled, result, strict=True):
        clusters.setdefault(story, set()).add(cluster_id)
    assert all(len(ids) == 1 for ids in clusters.values()), clusters
    assert len(set().union(*clusters.values())) == len(STORIES)


def test_founders_are_high_confidence_and_joins_carry_a_band() -> None:
    clusterer = OnlineClusterer()
    labelled = story_items()
    for _, item in labelled:
        assignment = clusterer.assign(item, now=item.published_at)
        if assignment.created:
            assert (assignment.similarity, assignment.link_confidence) == (1.0, "high")
        else:
            model = clusterer.config.model
            assert assignment.similarity >= model.join_threshold
            assert assignment.link_confidence == model.confidence(assignment.similarity)
            assert assignment.evidence is not None


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(7)))
def test_the_same_arrival_order_always_gives_the_same_clusters(order: list[int]) -> None:
    items = [item for _, item in story_items()]
    shuffled = [items[i] for i in order]
    assert run(shuffled) == run(shuffled)


@settings(max_examples=10, deadline=None)
@given(st.permutations(range(7)), st.integers(min_value=1, max_value=6))
def test_a_restored_clusterer_continues_exactly_like_the_original(
    order: list[int], cut: int
) -> None:
    items = [story_items()[i][1] for i in order]
    original = OnlineClusterer()
    expected = run(items, original)

    first = OnlineClusterer()
    run(items[:cut], first)
    restored = OnlineClusterer()
    for name, stats in first.statistics.items():
        restored.statistics[name].documents = stats.documents
        restored.statistics[name].counts.update(stats.counts)
    for profile in first.active_clusters:
        copy = ClusterProfile.from_state(profile.to_state())
        restored.restore(copy, first.index_keys(profile.cluster_id))
    restored.advance(first.watermark, next_seq=first.next_seq)
    assert run(items[cut:], restored) == expected[cut:]


def test_a_syndicated_copy_is_a_member_but_counts_once_in_the_profile() -> None:
    title, body = STORIES["trial"][0]
    original = make_story_item("wire", title, body, published_at=T0, source="wire.example")
    copy = make_story_item(
        "reprint",
        "Denver jury convicts Voss",
        body,
        published_at=T0 + timedelta(hours=2),
        source="paper.example",
        article_id=original.article_id,
    )
    clusterer = OnlineClusterer()
    clusterer.assign(original, now=T0)
    before = clusterer.active_clusters[0]
    state = before.to_state()
    assignment = clusterer.assign(copy, now=T0 + timedelta(hours=3))

    assert assignment.syndicated
    assert not assignment.created
    assert assignment.link_confidence == "high"
    profile = assignment.cluster
    assert profile is before
    assert profile.member_count == 2
    assert profile.unique_article_count == 1
    assert profile.unique_source_count == 2
    assert profile.source_keys == ["paper.example", "wire.example"]
    assert not profile.is_stub
    assert profile.profile_version == 2
    assert profile.latest_published_at == T0 + timedelta(hours=2)
    assert profile.latest_member_added_at == T0 + timedelta(hours=3)
    # Content evidence is unchanged: the copy did not count twice.
    assert profile.bags == state["bags"]
    assert profile.to_state()["embedding_sum"] == state["embedding_sum"]
    assert profile.title == title
    assert clusterer.statistics["terms"].documents == 1


def test_profile_fields_follow_the_members() -> None:
    clusterer = OnlineClusterer()
    reports = STORIES["storm-a"]
    for n, (title, body) in enumerate(reports):
        item = make_story_item(
            f"a{n}",
            title,
            body,
            published_at=T0 + timedelta(hours=n),
            source=f"outlet{n}.example",
            entities=[
                ("ent_ana", "Hurricane Ana", 0.9),
                ("ent_cc", "Corpus Christi", 0.7 - n * 0.1),
                (f"ent_extra{n}", f"Extra {n}", 0.1),
            ],
        )
        clusterer.assign(item, now=T0 + timedelta(hours=n, minutes=1))
    (profile,) = clusterer.active_clusters
    assert profile.member_count == 3
    assert profile.profile_version == 3
    assert profile.first_published_at == T0
    assert profile.latest_published_at == T0 + timedelta(hours=2)
    assert profile.latest_member_added_at == T0 + timedelta(hours=2, minutes=1)
    assert profile.key_entities()[:2] == ["Hurricane Ana", "Corpus Christi"]
    assert profile.title in {title for title, _ in reports}
    assert profile.title == profile.representatives[0].title  # the most central member
    ideas = profile.key_ideas()
    assert ideas, "shared phrases become key ideas"
    assert all(
        profile.phrases[key] >= 2
        for key in profile.phrases
        if profile.phrase_surfaces[key] in ideas
    )


def test_a_single_member_cluster_is_a_stub() -> None:
    clusterer = OnlineClusterer()
    (_, item), *_ = story_items()
    assignment = clusterer.assign(item, now=T0)
    assert assignment.created
    assert assignment.cluster.is_stub
    assert assignment.cluster.member_count == 1


def test_clusters_beyond_the_horizon_are_evicted_and_never_compared() -> None:
    config = ClusteringConfig(horizon=timedelta(days=2))
    clusterer = OnlineClusterer(config)
    title, body = STORIES["trial"][0]
    first = clusterer.assign(make_story_item("t0", title, body, published_at=T0), now=T0)
    later = T0 + timedelta(days=5)
    again = clusterer.assign(make_story_item("t1", title, body, published_at=later), now=later)
    assert again.created
    assert again.cluster.cluster_id != first.cluster.cluster_id
    assert [p.cluster_id for p in clusterer.active_clusters] == [again.cluster.cluster_id]
    assert clusterer.get(first.cluster.cluster_id) is None


def test_work_per_item_is_bounded_by_the_candidate_limit() -> None:
    config = ClusteringConfig(max_candidates=4, posting_limit=8)
    clusterer = OnlineClusterer(config)
    title, body = STORIES["storm-b"][0]
    # Many clusters that all share the item's specific words (each founds its own cluster
    # because the join threshold is unreachable).
    strict = LinkModel(
        weights=DEFAULT_LINK_MODEL.weights, bias=-50.0, join_threshold=0.99, high=1.0, medium=0.99
    )
    clusterer = OnlineClusterer(ClusteringConfig(model=strict, max_candidates=4, posting_limit=8))
    for n in range(30):
        item = make_story_item(
            f"m{n}", f"{title} {n}", body, published_at=T0 + timedelta(minutes=n)
        )
        assignment = clusterer.assign(item, now=item.published_at)
        assert assignment.candidates <= 4
    assert all(len(p) <= 8 for p in clusterer._postings.lists.values())
    assert config.max_candidates == 4


def test_link_model_bands_and_validation() -> None:
    model = LinkModel(weights=(1.0,) * 6, bias=0.0, join_threshold=0.3, high=0.9, medium=0.6)
    assert model.confidence(0.95) == "high"
    assert model.confidence(0.7) == "medium"
    assert model.confidence(0.31) == "low"
    evidence = LinkEvidence(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert model.probability(evidence) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="weights"):
        LinkModel(weights=(1.0,), bias=0.0, join_threshold=0.3, high=0.9, medium=0.6)
    with pytest.raises(ValueError, match="join_threshold"):
        LinkModel(weights=(1.0,) * 6, bias=0.0, join_threshold=0.7, high=0.9, medium=0.6)


def test_lexical_bags_and_key_idea_candidates() -> None:
    assert (
        story_names("Tony Thompson", "Klitschko beat Thompson in Hamburg. The fight")["thompson"]
        == 2
    )
    assert "the" not in story_names("", "The fight. He won.")
    assert story_numbers("", "A 6.1 quake killed 1,200 and 1200 more") == {"6.1": 1, "1200": 2}
    phrases = candidate_phrases(
        "Hurricane Ana makes landfall near Corpus Christi",
        "Governor Greg Abbott ordered an evacuation yesterday. It was 120 mph.",
    )
    assert phrases == [
        "Hurricane Ana",
        "makes landfall near",
        "Corpus Christi",
        "Governor Greg Abbott",
    ]
    # A title-case headline gives its 2- and 3-word windows.
    assert "Ford Center" in candidate_phrases("Lohan Enters Betty Ford Center Clinic", "")


def test_key_idea_candidates_keep_words_with_accents_whole() -> None:
    """A letter outside ASCII is part of its word: "façade" is not cut to "fa"."""
    phrases = candidate_phrases(
        "Quake damages an office façade in Tecate",
        "The demolition of the office façade near the São Paulo café began on Monday.",
    )
    assert "office façade" in phrases
    assert "São Paulo" in phrases
    assert not [p for p in phrases if p.endswith(" fa") or p.startswith("ade")]
    # Digits and punctuation still end a run of words, as before.
    assert "office 4B" not in candidate_phrases("", "The office 4B tower fell.")
