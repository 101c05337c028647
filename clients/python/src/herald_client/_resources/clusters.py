"""``client.clusters``: news story clusters."""

from __future__ import annotations

from herald_client._endpoints import CLUSTERS_GET, CLUSTERS_LIST
from herald_client._pagination import AsyncPager, Pager
from herald_client._resources._base import AsyncResource, SyncResource, checked, next_offset
from herald_client.models import Cluster, ClusterDetail, ClusterList, ClusterListQuery
from herald_client.models._base import DateInput

__all__ = ["AsyncClusters", "Clusters"]


def _list_query(
    start_date: DateInput | None, end_date: DateInput | None, limit: int | None, offset: int | None
) -> ClusterListQuery:
    return checked(
        ClusterListQuery,
        {"start_date": start_date, "end_date": end_date, "limit": limit, "offset": offset},
    )


def _clusters(page: ClusterList) -> list[Cluster]:
    return page.clusters


class Clusters(SyncResource):
    def list(
        self,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> ClusterList:
        """One page of non-stub clusters, newest first (default: created in the last 7 days)."""
        query = _list_query(start_date, end_date, limit, offset)
        return self._client._request(CLUSTERS_LIST, query=query)

    def list_all(
        self,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        page_size: int | None = None,
    ) -> Pager[ClusterList, Cluster]:
        """Every cluster of the window, page by page."""

        def fetch(offset: int) -> ClusterList:
            return self.list(
                start_date=start_date, end_date=end_date, limit=page_size, offset=offset
            )

        return Pager(fetch, _clusters, next_offset, 0)

    def get(self, cluster_id: str) -> ClusterDetail:
        """The cluster (stubs included) and its members, newest first."""
        return self._client._request(CLUSTERS_GET, path_params={"cluster_id": cluster_id})


class AsyncClusters(AsyncResource):
    async def list(
        self,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> ClusterList:
        """See ``Clusters.list``."""
        query = _list_query(start_date, end_date, limit, offset)
        return await self._client._request(CLUSTERS_LIST, query=query)

    def list_all(
        self,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        page_size: int | None = None,
    ) -> AsyncPager[ClusterList, Cluster]:
        """See ``Clusters.list_all`` (``async for``)."""

        async def fetch(offset: int) -> ClusterList:
            return await self.list(
                start_date=start_date, end_date=end_date, limit=page_size, offset=offset
            )

        return AsyncPager(fetch, _clusters, next_offset, 0)

    async def get(self, cluster_id: str) -> ClusterDetail:
        """See ``Clusters.get``."""
        return await self._client._request(CLUSTERS_GET, path_params={"cluster_id": cluster_id})
