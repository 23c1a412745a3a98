use axum::{
    extract::{Path, State},
    http::StatusCode,
    routing::get,
    Json, Router,
};

use crate::models::{Item, NewItem};
use crate::state::AppState;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/items", get(list_items).post(create_item))
        .route("/items/:id", get(get_item))
        .with_state(state)
}

async fn health() -> &'static str {
    "ok"
}

async fn list_items(State(state): State<AppState>) -> Json<Vec<Item>> {
    let items = state.db.list_items().await;
    Json(items)
}

async fn get_item(
    State(state): State<AppState>,
    Path(id): Path<u64>,
) -> Result<Json<Item>, StatusCode> {
    match state.db.get_item(id).await {
        Some(item) => Ok(Json(item)),
        None => Err(StatusCode::NOT_FOUND),
    }
}

async fn create_item(
    State(state): State<AppState>,
    Json(new): Json<NewItem>,
) -> Result<(StatusCode, Json<Item>), StatusCode> {
    if new.name.trim().is_empty() {
        return Err(StatusCode::UNPROCESSABLE_ENTITY);
    }
    let item = state.db.insert_item(new).await;
    Ok((StatusCode::CREATED, Json(item)))
}
